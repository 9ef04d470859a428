// Sign-up with verification, email verification and password reset, as docs/email.md shows them: the
// flows in core over memory stores that write their mail into one outbox (read back here as the drain
// would send it), and the same flows over HTTP on a real Express server.
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { AccountEmail } from '@portcullis/core/account-email'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { CodeKeyRing } from '@portcullis/core/codes'
import { LocalAccounts, MemorySessionStore } from '@portcullis/core/local-accounts'
import { type MailMessage, MemoryNotificationSettings } from '@portcullis/core/mail'
import { accountEmailRoutes, createSecurity, localAccountRoutes } from '@portcullis/express'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import express from 'express'
import { afterAll, expect, it } from 'vitest'
import { plainHasher } from '../../test/support/example-hasher.js'
import { exampleMailStores, readOutboxMail } from '../../test/support/example-outbox.js'

// A cheap hasher keeps the example fast; an application uses `argon2idPasswordHasher()`.
const hasher = plainHasher
const stores = exampleMailStores()
const { outbox, codes, rateLimits, protector } = stores
const sessions = new MemorySessionStore()
const accounts = new MemoryAccountStore({ outbox, cascade: [codes, sessions] })
const local = new LocalAccounts({
  profile: 'session',
  accounts,
  sessions,
  rateLimits,
  hasher,
  registration: 'open',
  publicOrigin: 'https://app.example',
  passwordScreen: commonPasswordScreen(),
  // People sign in with the address they verified (email sign-up gives them no username to remember).
  signInWith: ['username', 'email'],
})

// #region flows
const accountEmail = new AccountEmail({
  accounts,
  local,
  codes,
  outbox,
  notificationSettings: new MemoryNotificationSettings(),
  protector,
  codeKeys: new CodeKeyRing({ version: 1, secret: randomBytes(32) }), // loadCodeKey({ material: env })
  publicOrigin: 'https://app.example', // every link starts here, never at a request's Host
  rateLimits,
  signInWith: ['username', 'email'],
  // The pages links open; each reads `flow` (query) and `code` (fragment) and POSTs them.
  pages: { verifyEmail: '/verify-email', resetPassword: '/reset-password' },
  passwordReset: {
    unknownAddress: 'notify', // an unknown address is told someone tried ('silent': nothing is sent)
    signIn: 'never', // or 'after-second-factor': signed in when the reset verified the TOTP code
  },
  // secondFactor: the TotpSecondFactor given to LocalAccounts, so a TOTP account's reset needs its code
})
// #endregion flows

const mail = (kind: MailMessage['kind'], address: string) => readOutboxMail(stores, kind, address)

it('signs up, verifies the address and resets the password', async () => {
  // #region sign-up
  // 202 { flow } for a new address and for one that has an account already: the new one gets an
  // account (address unverified) and a code; the known one gets no account and a notice instead.
  const { flow } = await accountEmail.signUp({
    email: 'ada@example.com',
    password: 'a long and unusual passphrase',
  })
  const { code } = await mail('verification', 'ada@example.com') // what the person types
  await accountEmail.verifyEmail({ flow, code }) // or: the link's page POSTs both
  // #endregion sign-up
  expect(await accounts.findAccountByVerifiedEmail('ada@example.com')).not.toBeNull()

  // #region reset
  // Anyone may ask; the answer is the same for every address.
  const reset = await accountEmail.requestPasswordReset({ email: 'ada@example.com' })
  const sent = await mail('password-reset', 'ada@example.com') // link: /reset-password?flow=...#code=...
  const done = await accountEmail.resetPassword({
    flow: reset.flow,
    code: sent.code,
    password: 'my new passphrase here',
  })
  // done.outcome: 'reset' (every session of the account ended, a notification is in the outbox), or
  // 'second-factor' for a TOTP account: then completeResetSecondFactor({ resetToken, pendingToken, code })
  // #endregion reset
  expect(done.outcome).toBe('reset')
  expect(sent.link.startsWith('https://app.example/reset-password?flow=')).toBe(true)
  const signIn = await local.login({ username: 'ada@example.com', password: 'my new passphrase here' })
  expect(signIn).toHaveProperty('accountId')
})

// #region routes
const security = createSecurity({ mechanisms: local.mechanisms })
const app = express()
app.use(security.middleware)
app.use(localAccountRoutes({ local, security }))
// POST /auth/email/sign-up, /auth/email/verify, /auth/email/verify/resend, /auth/password/forgot,
// /auth/password/reset, /auth/password/reset/second-factor: JSON or forms, no-store, no-referrer.
app.use(accountEmailRoutes({ accountEmail, local, security }))
// #endregion routes

const server = app.listen(0, '127.0.0.1')
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

it('serves the same flows over HTTP, with a link on the public origin whatever Host says', async () => {
  await new Promise<void>((resolve) =>
    server.listening ? resolve() : server.once('listening', () => resolve()),
  )
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-host': 'evil.example', ...headers },
      body: JSON.stringify(body),
    })
  const known = await post('/auth/password/forgot', { email: 'ada@example.com' })
  const unknown = await post('/auth/password/forgot', { email: 'nobody@example.com' })
  expect([known.status, unknown.status]).toEqual([202, 202])
  expect(known.headers.get('referrer-policy')).toBe('no-referrer')
  expect(known.headers.get('cache-control')).toContain('no-store')
  const sent = await mail('password-reset', 'ada@example.com')
  expect(new URL(sent.link).origin).toBe('https://app.example')
  expect((await mail('unknown-account-reset', 'nobody@example.com')).message).toBeDefined()
  const done = await post('/auth/password/reset', {
    flow: sent.flow,
    code: sent.code,
    password: 'the third passphrase of ada',
  })
  expect(done.status).toBe(200)
})
