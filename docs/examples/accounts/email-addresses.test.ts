// Email addresses on the account, as the docs show them: normalizing what a person typed, adding and
// verifying an address (two instances racing for one address: one wins), signing in with a verified
// address, and removing one without losing the last way in. Postgres behind two pools, as two instances.
import { argon2idPasswordHasher } from '@portcullis/argon2'
import { normalizeEmailAddress } from '@portcullis/core/accounts'
import { LocalAccounts, type LocalAccountsOptions } from '@portcullis/core/local-accounts'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresRateLimitStore,
  PostgresSessionStore,
} from '@portcullis/postgres'
import { afterAll, expect, it } from 'vitest'

const first = createPostgresClient({ connectionString: process.env.DATABASE_URL ?? '' })
const second = createPostgresClient({ connectionString: process.env.DATABASE_URL ?? '' })
await migrate(first)
afterAll(async () => {
  await first.close()
  await second.close()
})
const accounts = new PostgresAccountStore({ client: first })
const otherInstance = new PostgresAccountStore({ client: second })

// #region sign-in-with
const options: LocalAccountsOptions = {
  profile: 'session',
  accounts,
  sessions: new PostgresSessionStore({ client: first }),
  rateLimits: new PostgresRateLimitStore({ client: first }),
  hasher: argon2idPasswordHasher(),
  registration: 'open',
  publicOrigin: 'https://app.example',
  passwordScreen: commonPasswordScreen(),
  // The `username` of a sign-in may be a username or a verified address of the account.
  signInWith: ['username', 'email'],
}
// #endregion sign-in-with
const local = new LocalAccounts(options)
const suffix = Date.now().toString(36)

it('normalizes, adds and verifies an address; of two instances verifying one address, one wins', async () => {
  const alice = await local.register({
    username: `alice-${suffix}`,
    password: 'correct horse battery staple',
  })
  const mallory = await local.register({ username: `mallory-${suffix}`, password: 'another long password' })
  const typed = ` Alice.${suffix}@Example.COM `
  // #region add-and-verify
  // Trimmed, domain lowered and IDNA-encoded, local part NFC and kept as typed; CR/LF is refused.
  const address = normalizeEmailAddress(typed) // 'Alice.…@example.com'
  const now = new Date()
  // Unverified: it signs nobody in and blocks nobody (another account may hold it unverified too).
  await accounts.addEmailAddress({ accountId: alice.accountId, address, now })
  await accounts.addEmailAddress({ accountId: mallory.accountId, address, now })
  // Once the person proved control of it (a code they received), on any instance:
  const [won, lost] = await Promise.all([
    accounts.verifyEmailAddress({ accountId: alice.accountId, address, now }),
    otherInstance.verifyEmailAddress({ accountId: mallory.accountId, address, now }),
  ])
  // One is 'verified', the other 'taken': a verified address belongs to one account only.
  // #endregion add-and-verify
  expect(address).toBe(`Alice.${suffix}@example.com`)
  expect([won.outcome, lost.outcome].sort()).toEqual(['taken', 'verified'])
  const owner = won.outcome === 'verified' ? alice.accountId : mallory.accountId
  expect((await accounts.findAccountByVerifiedEmail(address))?.accountId).toBe(owner)
  expect(() => normalizeEmailAddress(`${address}\r\nBcc: x@evil.example`)).toThrow(
    expect.objectContaining({ code: 'email.invalid_address' }),
  )
})

it('signs in with a verified address; an unverified one answers like an unknown username', async () => {
  const { accountId } = await local.register({
    username: `bob-${suffix}`,
    password: 'correct horse battery staple',
  })
  const address = `bob.${suffix}@example.com`
  const now = new Date()
  await accounts.addEmailAddress({ accountId, address, now })
  const unverified = await local
    .login({ username: address, password: 'correct horse battery staple' }, { transport: 'session' })
    .catch((error: { code: string }) => error.code)
  expect(unverified).toBe('local.invalid_credentials')
  await accounts.verifyEmailAddress({ accountId, address, now })
  const signIn = await local.login(
    { username: address, password: 'correct horse battery staple' },
    { transport: 'session' },
  )
  expect(signIn).toMatchObject({ accountId })
  // #region remove
  // Pass the sign-in setting along: with email-only sign-in, an account's last verified address is its
  // last way in and answers 'final-method'. Removing a verified address moves the security epoch.
  const removed = await accounts.removeEmailAddress({
    accountId,
    address,
    now: new Date(),
    signInWith: options.signInWith,
  })
  // removed.outcome: 'removed' | 'primary' | 'final-method' | 'not-found'
  // #endregion remove
  expect(removed).toMatchObject({ outcome: 'removed', securityEpoch: 2 })
})
