// The signed-in account's addresses, as docs/email.md shows them: add a secondary address (a code goes
// to it), verify it, make it primary, remove the old one; memory stores that write their mail into one
// outbox, read back here as the drain would send it.
import { randomBytes } from 'node:crypto'
import { AccountEmail } from '@portcullis/core/account-email'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { CodeKeyRing } from '@portcullis/core/codes'
import { LocalAccounts, MemorySessionStore, type SessionSignIn } from '@portcullis/core/local-accounts'
import { type MailMessage, MemoryNotificationSettings } from '@portcullis/core/mail'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import { expect, it } from 'vitest'
import { plainHasher } from '../../test/support/example-hasher.js'
import { exampleMailStores, readOutboxMail } from '../../test/support/example-outbox.js'

// A cheap hasher keeps the example fast; an application uses `argon2idPasswordHasher()`.
const hasher = plainHasher
const PASSWORD = 'correct horse battery staple'

/** An application signing people in with `signInWith`, over fresh memory stores. */
async function world(signInWith: readonly ('username' | 'email')[]) {
  const stores = exampleMailStores()
  const { outbox, codes, rateLimits, protector } = stores
  const stepUpStore = new MemoryStepUpStore()
  const sessions = new MemorySessionStore()
  const accounts = new MemoryAccountStore({ outbox, cascade: [stepUpStore, codes, sessions] })
  const notificationSettings = new MemoryNotificationSettings()
  const local = new LocalAccounts({
    profile: 'session',
    accounts,
    sessions,
    rateLimits,
    hasher,
    registration: 'open',
    publicOrigin: 'https://app.example',
    passwordScreen: commonPasswordScreen(),
    signInWith,
  })
  const stepUp = new StepUpService({ store: stepUpStore })
  const accountEmail = new AccountEmail({
    accounts,
    local,
    codes,
    outbox,
    notificationSettings,
    protector,
    codeKeys: new CodeKeyRing({ version: 1, secret: randomBytes(32) }),
    publicOrigin: 'https://app.example',
    rateLimits,
    signInWith,
    // Adding, making primary and removing an address spend a step-up credential of purpose `email-change`.
    stepUp,
  })
  const { accountId } = await local.register({ username: 'ada', password: PASSWORD })
  await accounts.addEmailAddress({ accountId, address: 'ada@example.com', now: new Date() })
  await accounts.verifyEmailAddress({ accountId, address: 'ada@example.com', now: new Date() })
  let signIn = (await local.login({
    username: signInWith.includes('username') ? 'ada' : 'ada@example.com',
    password: PASSWORD,
  })) as SessionSignIn
  const account = async () => (await accounts.getAccount(accountId))?.securityEpoch ?? 0
  const session = async () => ({ accountId, securityEpoch: await account(), sessionHandle: signIn.handle })
  const credentials = async () => ({ sessionHandle: signIn.handle, securityEpoch: await account() })
  const steppedUp = async () => ({
    session: await session(),
    credentials: await credentials(),
    stepUpToken: (
      await stepUp.issue({
        accountId,
        purpose: 'email-change',
        securityEpoch: await account(),
        sessionBinding: signIn.handle,
      })
    ).reveal(),
  })
  const renewed = (next: SessionSignIn | undefined) => {
    if (next !== undefined) signIn = next
  }
  const mail = (kind: MailMessage['kind']) => readOutboxMail(stores, kind)
  return { accountEmail, accounts, notificationSettings, accountId, session, steppedUp, renewed, mail }
}

it('adds, verifies, makes primary and removes addresses, telling the account each time', async () => {
  const { accountEmail, accounts, accountId, session, steppedUp, renewed, mail } = await world([
    'username',
    'email',
  ])

  // #region addresses
  // Adding spends an `email-change` step-up: a verified address can receive password resets. The
  // address is unverified; its code and the message carrying it are written in one transaction, and
  // the primary address is told (`address-added`) in the transaction that adds it.
  const { flow } = await accountEmail.addAddress({
    ...(await steppedUp()),
    body: { email: 'ada@work.example' },
  })
  // A new code for an unverified address of the account (only the newest code works):
  await accountEmail.resendAddressVerification({
    session: await session(),
    body: { email: 'ada@work.example' },
  })
  // The code from that mailbox verifies it (`POST {base}/auth/email/verify`, no session needed).
  const sent = await mail('verification')
  await accountEmail.verifyEmail({ flow: sent.flow, code: sent.code })
  // Making it primary moves the security epoch: every other session ends, the caller gets a new one.
  const primary = await accountEmail.makeAddressPrimary({
    ...(await steppedUp()),
    body: { email: 'ada@work.example' },
  })
  // primary.session: the caller's fresh session (set its cookie)
  // #endregion addresses
  renewed(primary.session)

  // #region address-removal
  // Removing a verified address moves the epoch too and ends the reset codes mailed to it. The primary
  // goes last, and never while it is the account's last way in.
  const removed = await accountEmail.removeAddress({
    ...(await steppedUp()),
    body: { email: 'ada@example.com' },
  })
  // #endregion address-removal
  renewed(removed.session)

  expect(flow).not.toBe(sent.flow)
  expect(
    (await accounts.listEmailAddresses(accountId)).map((each) => [each.address, each.primary, each.verified]),
  ).toEqual([['ada@work.example', true, true]])
  const told = (await mail('security-notification')).all.map((message) =>
    message.kind === 'security-notification' ? `${message.change.type} ${message.to.address}` : '',
  )
  expect(told.sort()).toEqual([
    'address-added ada@example.com',
    'address-changed ada@example.com',
    'address-changed ada@work.example',
    'address-removed ada@example.com',
    'address-removed ada@work.example',
  ])
  expect(primary.session).toBeDefined()
  expect(removed.session).toBeDefined()
})

it('never removes the last verified address when people sign in by address only', async () => {
  const { accountEmail, steppedUp, mail } = await world(['email'])
  await accountEmail.addAddress({ ...(await steppedUp()), body: { email: 'ada@work.example' } })
  const sent = await mail('verification')
  // An unverified secondary address is no way in: removing the verified one would lock the account.
  await expect(
    accountEmail.removeAddress({ ...(await steppedUp()), body: { email: 'ada@work.example' } }),
  ).resolves.toMatchObject({ address: 'ada@work.example' })
  await expect(
    accountEmail.removeAddress({ ...(await steppedUp()), body: { email: 'ada@example.com' } }),
  ).rejects.toMatchObject({ code: 'account_email.last_sign_in_address' })
  // The removed address's code verifies nothing any more.
  await expect(accountEmail.verifyEmail({ flow: sent.flow, code: sent.code })).rejects.toMatchObject({
    code: 'account_email.invalid_code',
  })
  // A forged step-up credential removes nothing.
  await expect(
    accountEmail.removeAddress({
      ...(await steppedUp()),
      stepUpToken: 'forged',
      body: { email: 'ada@example.com' },
    }),
  ).rejects.toMatchObject({ code: 'step-up.required' })
})
