// A TOTP second factor for password sign-ins: the secret sealed with the protector, codes accepted once
// (the store records the used time step, on every instance), attempts limited in the shared rate-limit
// store, ten recovery codes, and the two-step sign-in on the generated routes.
import { argon2idPasswordHasher } from '@portcullis/argon2'
import { LocalAccounts } from '@portcullis/core/local-accounts'
import {
  AESGCMOAuthTransactionProtector,
  loadOAuthTransactionProtectorKey,
} from '@portcullis/core/protection'
import { TotpSecondFactor } from '@portcullis/core/totp'
import { createSecurity, localAccountRoutes } from '@portcullis/express'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresRateLimitStore,
  PostgresSessionStore,
  PostgresStepUpStore,
  PostgresTotpStore,
} from '@portcullis/postgres'
import { TotpService } from '@portcullis/totp'
import express from 'express'

const database = createPostgresClient({ connectionString: process.env.DATABASE_URL ?? '' })
await migrate(database)
const rateLimits = new PostgresRateLimitStore({ client: database })

export const totp = new TotpService({
  store: new PostgresTotpStore({ client: database }),
  // The same protector that seals OAuth secrets; each TOTP secret is bound to its account.
  protector: new AESGCMOAuthTransactionProtector({
    activeKey: loadOAuthTransactionProtectorKey({
      version: '2031-03',
      material: process.env.PORTCULLIS_PROTECTOR_KEY,
      encoding: 'base64url',
    }),
  }),
  rateLimits,
  // Recovery codes are stored as HMAC digests under this pepper (at least 32 bytes, from a secret store).
  recoveryCodePeppers: {
    active: {
      version: 'rc-1',
      secret: Buffer.from(process.env.PORTCULLIS_RECOVERY_PEPPER ?? '', 'base64url'),
    },
  },
  issuer: 'Example App',
  // Five codes or recovery codes per account and five minutes, on every instance.
  attempts: { limit: 5, windowSeconds: 300 },
})

export const local = new LocalAccounts({
  profile: 'session',
  accounts: new PostgresAccountStore({ client: database }),
  sessions: new PostgresSessionStore({ client: database }),
  rateLimits,
  hasher: argon2idPasswordHasher(),
  publicOrigin: 'https://app.example',
  passwordScreen: commonPasswordScreen(),
  // #region a-second-factor-totp-and-recovery-codes
  // A correct password of an account with TOTP answers 202 { pendingToken } instead of a session; the
  // pending sign-in waits (as a digest, five minutes) in a step-up store.
  secondFactor: new TotpSecondFactor({ totp, pending: new PostgresStepUpStore({ client: database }) }),
  // #endregion a-second-factor-totp-and-recovery-codes
})

const security = createSecurity({ mechanisms: local.mechanisms })
export const app: express.Express = express()
app.use(security.middleware)
// POST /auth/login answers 202 for an account with TOTP; POST /auth/login/second-factor finishes it
// with { pendingToken, code } or { pendingToken, recoveryCode }.
app.use(localAccountRoutes({ local, security }))

/** Enrollment, step 1: the URI to show as a QR code (and the base32 secret to type), shown once. */
export async function startEnrollment(accountId: string, username: string): Promise<string> {
  const start = await totp.beginEnrollment({ accountId, label: username })
  return start.revealUri()
}

/** Enrollment, step 2: the first valid code enables TOTP and returns the ten recovery codes, once. */
export async function confirmEnrollment(accountId: string, code: string): Promise<readonly string[]> {
  const recoveryCodes = await totp.confirmEnrollment({ accountId, code })
  return recoveryCodes.reveal()
}
