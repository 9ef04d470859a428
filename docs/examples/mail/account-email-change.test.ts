// Email change with its undo link, sign-in by email code and security notifications, as docs/email.md
// shows them: memory stores that write their mail into one outbox, read back here as the drain would
// send it.
import { randomBytes } from 'node:crypto'
import { AccountEmail, SecurityNotifier } from '@portcullis/core/account-email'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { CodeKeyRing, MemoryOneTimeCodeStore } from '@portcullis/core/codes'
import {
  LocalAccounts,
  MemoryRateLimitStore,
  MemorySessionStore,
  type PasswordHasher,
  type SessionSignIn,
} from '@portcullis/core/local-accounts'
import {
  type MailMessage,
  MemoryMailOutbox,
  MemoryNotificationSettings,
  openOutboxMessage,
} from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import { expect, it } from 'vitest'

// A cheap hasher keeps the example fast; an application uses `argon2idPasswordHasher()`.
const hasher: PasswordHasher = {
  hash: async (password) => `plain$${Buffer.from(password).toString('base64url')}`,
  verify: async (hash, password) => hash === `plain$${Buffer.from(password).toString('base64url')}`,
  needsRehash: () => false,
}
const outbox = new MemoryMailOutbox()
const codes = new MemoryOneTimeCodeStore({ outbox })
const stepUpStore = new MemoryStepUpStore()
const accounts = new MemoryAccountStore({ outbox, cascade: [stepUpStore, codes] })
const rateLimits = new MemoryRateLimitStore()
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
})
const notificationSettings = new MemoryNotificationSettings()
const appEvents: string[] = []

// #region notifier
// One notifier for the whole application: the email flows write its entries with their changes, and
// its event sink notifies what TOTP, passkeys and provider links change in their own stores.
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
// and the OAuth routes; createInteractions({ onConsented }) of the authorization server:
const onConsented = (grant: { accountId: string; clientName: string }) =>
  notifier.notify(grant.accountId, { type: 'mcp-client-connected', client: grant.clientName })
// #endregion notifier

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

async function mail(kind: MailMessage['kind']) {
  const rows = [...outbox.pending()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
  const messages = await Promise.all(rows.map((row) => openOutboxMessage(protector, row)))
  const message = messages.filter((each) => each.kind === kind).at(-1)
  const link =
    message === undefined
      ? ''
      : 'link' in message
        ? message.link
        : 'undoLink' in message
          ? message.undoLink
          : ''
  const url = new URL(link || 'https://app.example/')
  return {
    message,
    flow: url.searchParams.get('flow') ?? '',
    code: new URLSearchParams(url.hash.slice(1)).get('code') ?? '',
  }
}

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
