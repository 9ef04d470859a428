// Email change with its undo link, sign-in by email code and security notifications, as docs/email.md
// shows them: memory stores that write their mail into one outbox, read back here as the drain would
// send it.
import { randomBytes } from 'node:crypto'
import { AccountEmail, SecurityNotifier } from '@portcullis/core/account-email'
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
const stores = exampleMailStores()
const { outbox, codes, rateLimits, protector } = stores
const stepUpStore = new MemoryStepUpStore()
const accounts = new MemoryAccountStore({ outbox, cascade: [stepUpStore, codes] })
const notificationSettings = new MemoryNotificationSettings()
const appEvents: string[] = []

// #region notifier
// One notifier for the whole application: the email flows write its entries with their changes, and so
// do TOTP, passkeys, provider links and the authorization server's grants, given it as
// `securityNotices`. Its event sink hands every event on, and enqueues only for an event not `notified`.
const notifier = new SecurityNotifier({
  accounts,
  notificationSettings,
  outbox,
  protector,
  reviewLink: 'https://app.example/account/security',
})
const securityEvents = notifier.sink((event) => {
  appEvents.push(event.type) // the application's own sink: audit log, metrics
})
// Pass `securityEvents` to LocalAccounts({ events }), TotpService({ events }), PasskeyService({ events })
// and the OAuth routes.
// #endregion notifier
// `notify` enqueues on its own, after a change committed elsewhere (lost if the process stops between).
const onConsented = (grant: { accountId: string; clientName: string }) =>
  notifier.notify(grant.accountId, { type: 'mcp-client-connected', client: grant.clientName })

const local = new LocalAccounts({
  profile: 'session',
  accounts,
  sessions: new MemorySessionStore(),
  rateLimits,
  hasher,
  registration: 'open',
  publicOrigin: 'https://app.example',
  passwordScreen: commonPasswordScreen(),
  signInWith: ['username', 'email'],
  events: securityEvents,
  // A password change (and the administrator's reset) writes its notification in its own transaction.
  securityNotices: notifier,
})
const stepUp = new StepUpService({ store: stepUpStore })

// #region account-email
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
  notifier,
  signInWith: ['username', 'email'],
  // Email change consumes a step-up credential of purpose `email-change`.
  stepUp,
  emailChange: { codeMinutes: 60, undoDays: 7 },
  // Off by default. A sign-in by code satisfies no step-up: email is not an AAL2 authenticator.
  signInCode: { enabled: true },
})
// #endregion account-email

const mail = (kind: MailMessage['kind']) => readOutboxMail(stores, kind)

it('changes the address only once the new one is confirmed, and the old one can undo it', async () => {
  const { accountId } = await local.register({ username: 'ada', password: 'correct horse battery staple' })
  await accounts.addEmailAddress({ accountId, address: 'ada@example.com', now: new Date() })
  await accounts.verifyEmailAddress({ accountId, address: 'ada@example.com', now: new Date() })
  const signIn = (await local.login({
    username: 'ada',
    password: 'correct horse battery staple',
  })) as SessionSignIn
  const session = { accountId, securityEpoch: 1, sessionHandle: signIn.handle }
  const credentials = { sessionHandle: signIn.handle, securityEpoch: 1 }
  const stepUpToken = (
    await stepUp.issue({
      accountId,
      purpose: 'email-change',
      securityEpoch: 1,
      sessionBinding: signIn.handle,
    })
  ).reveal()

  // #region email-change
  // 1. Signed in, with a fresh `email-change` step-up: nothing changes yet. The new address gets a
  //    code, the old one a notice with an undo link.
  await accountEmail.requestEmailChange({ session, stepUpToken, body: { email: 'ada@new.example' } })
  // 2. The code from the new address's mailbox, by the same signed-in account: the new address is the
  //    verified primary now, the old one is told, and every other session ends.
  const sent = await mail('email-change-verification')
  const done = await accountEmail.completeEmailChange({
    session,
    body: { flow: sent.flow, code: sent.code },
    credentials,
  })
  // done.session: the caller's fresh session (set its cookie)
  // 3. Within 7 days, the undo link of the old address (no session needed) restores it.
  const undo = await mail('email-change-notice')
  await accountEmail.undoEmailChange({ flow: undo.flow, code: undo.code })
  // #endregion email-change

  expect(done.address).toBe('ada@new.example')
  const addresses = await accounts.listEmailAddresses(accountId)
  expect(addresses.map((each) => [each.address, each.primary, each.verified])).toEqual([
    ['ada@example.com', true, true],
  ])
  const told = await mail('security-notification')
  expect(told.message).toMatchObject({
    to: { address: 'ada@example.com' },
    change: { type: 'address-changed' },
  })
  expect(appEvents).toContain('email.change_undone')
  expect(await onConsented({ accountId, clientName: 'Notes agent' })).toBe(true)
})

it('signs in with a code; a turned-off kind of notification is not mailed', async () => {
  const { accountId } = await local.register({ username: 'grace', password: 'correct horse battery staple' })
  await accounts.addEmailAddress({ accountId, address: 'grace@example.com', now: new Date() })
  await accounts.verifyEmailAddress({ accountId, address: 'grace@example.com', now: new Date() })

  // #region sign-in-code
  // The same answer for every address; only a verified address of an active account is mailed.
  const { flow } = await accountEmail.requestSignInCode({ email: 'grace@example.com' })
  const { code } = await mail('sign-in-code') // what the person types
  const signIn = await accountEmail.signInWithCode({ flow, code }, { transport: 'session' })
  // signIn: a session, or a PendingSecondFactor when the account has TOTP (as after a password)
  // #endregion sign-in-code
  expect(signIn.transport).toBe('session')

  // #region settings
  await accountEmail.setNotificationSettings(accountId, { optOuts: ['mcp-client-connected'] })
  const settings = await accountEmail.notificationSettings(accountId)
  // settings.kinds: every kind; settings.optOuts: ['mcp-client-connected']
  // #endregion settings
  expect(settings.optOuts).toEqual(['mcp-client-connected'])
  expect(await onConsented({ accountId, clientName: 'Notes agent' })).toBe(false)
})
