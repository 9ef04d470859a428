import { createHmac } from 'node:crypto'
import { argon2idPasswordHasher } from '@portcullis/argon2'
import { LocalAccounts, type SecondFactorGate, type SecurityEventSink } from '@portcullis/core/local-accounts'
import type { RevocationNotices } from '@portcullis/core/revocation'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import {
  type PostgresAccountStore,
  type PostgresClient,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
} from '@portcullis/postgres'
import { DEMO_USERS, type DemoDirectory } from '../directory/demo-directory.js'
import type { KeyMaterial } from '../secrets/key-material.js'

/** The name of the local session mechanism: every page's policy names it (`required(SESSION_MECHANISM)`). */
export const SESSION_MECHANISM = 'session'
/** The name of the local access-token mechanism (`Authorization: Bearer`, tokens from `POST /auth/token`). */
export const LOCAL_TOKEN_MECHANISM = 'local-token'
/** Where the local access tokens' public keys are served (by `localAccountRoutes`). */
export const LOCAL_JWKS_PATH = '/auth/jwks.json'
/** `aud` of the local access tokens: this app's API. */
export const localTokenAudience = (publicOrigin: string) => `${publicOrigin}/api`

const LOOPBACK_HTTP = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/

/** Plain-http loopback origin: cookies drop `Secure` and the `__Host-` prefix (local development only). */
export const isInsecureLoopback = (origin: string) => LOOPBACK_HTTP.test(origin)

export interface LocalAccountsParts {
  readonly postgres: PostgresClient
  /** The one account store (passwords and provider identities of the same accounts). */
  readonly accounts: PostgresAccountStore
  readonly keys: KeyMaterial
  readonly publicOrigin: string
  readonly trustedOrigins: readonly string[]
  readonly trustedProxies: readonly string[]
  readonly events: SecurityEventSink
  /** Revocation notices of every instance (the Postgres listener): cached sessions are then told. */
  readonly notices: RevocationNotices
  /** The second step of password sign-ins of accounts with TOTP. */
  readonly secondFactor: SecondFactorGate
}

/**
 * Local accounts in the hybrid profile over Postgres: argon2id passwords, browser sessions in a `__Host-`
 * cookie (a plain one on `http://127.0.0.1`), and for API clients short-lived access tokens (signed with
 * the secrets file's local signing keys) with rotating refresh tokens; rate limits shared by every
 * instance, the app's event sink.
 */
export function createLocalAccounts(parts: LocalAccountsParts): LocalAccounts {
  const { postgres: client, publicOrigin } = parts
  const insecure = isInsecureLoopback(publicOrigin)
  return new LocalAccounts({
    profile: 'hybrid',
    accounts: parts.accounts,
    sessions: new PostgresSessionStore({ client }),
    refreshTokens: new PostgresRefreshTokenStore({ client }),
    rateLimits: new PostgresRateLimitStore({ client }),
    hasher: argon2idPasswordHasher(),
    registration: 'open',
    publicOrigin,
    passwordScreen: commonPasswordScreen(),
    trustedOrigins: parts.trustedOrigins,
    trustedProxies: parts.trustedProxies,
    session: {
      idleTimeoutSeconds: 8 * 3600,
      absoluteTimeoutSeconds: 7 * 86_400,
      ...(insecure ? { cookie: { insecureLocalhostDevelopment: true, publicOrigin } } : {}),
    },
    tokens: {
      ring: parts.keys.localSigningKeys,
      issuer: publicOrigin,
      audience: localTokenAudience(publicOrigin),
      jwksUri: `${publicOrigin}${LOCAL_JWKS_PATH}`,
      accessTokenLifetimeSeconds: 300,
      ...(insecure ? { allowInsecureLoopback: true } : {}),
      // Workload JWTs also travel as `Authorization: Bearer`: tokens of another issuer are left to them.
      shareBearerHeader: true,
    },
    mechanismNames: { session: SESSION_MECHANISM, bearer: LOCAL_TOKEN_MECHANISM },
    // A sign-out, password change or back-channel logout on any instance reaches every instance's cache
    // within moments; should the listener drop, cached entries fall back to the default 5 s bound.
    revocation: { notices: parts.notices },
    // An account with TOTP answers a correct password with a pending sign-in, not a session.
    secondFactor: parts.secondFactor,
    events: parts.events,
  })
}

/**
 * The password of a demo user: derived from the demo seed of the secrets file (HMAC), so it is the same
 * on every start, differs between installations, and no password is written in the code.
 */
export function demoPassword(seed: Uint8Array, username: string): string {
  return createHmac('sha256', seed)
    .update(`portcullis-reference-demo-password|${username}`)
    .digest('base64url')
    .slice(0, 20)
}

/** A demo user as the console reports it: the password only when the account was created by this start. */
export interface SeededUser {
  readonly username: string
  readonly accountId: string
  readonly password?: string
  /** The verified primary address the seed gave the account (none when it has other addresses). */
  readonly email?: string
}

/**
 * The address of a demo user: the one the demo IdP gives the same person, under `.invalid` (RFC 2606),
 * so a real mail server never delivers it (the development mailbox receives everything).
 */
export const demoEmailAddress = (username: string) => `${username}@demo.portcullis.invalid`

/** The account id of a demo user (stable, so API keys and events survive restarts). */
export const demoAccountId = (username: string) => `demo-${username}`

/**
 * Gives a demo account its verified address when it has none at all: a database made before accounts
 * had addresses gets them at its next start, and an address the person changed or removed since is left
 * as they left it. Two instances seeding at once both end with the one verified address. Returns the
 * address, or a sentence for the console when another account verified it first.
 */
async function seedDemoAddress(
  store: PostgresAccountStore,
  accountId: string,
  username: string,
): Promise<{ readonly email?: string; readonly notice?: string }> {
  const existing = await store.listEmailAddresses(accountId)
  const address = demoEmailAddress(username)
  if (existing.length > 0) {
    return existing.some((each) => each.address === address && each.verified) ? { email: address } : {}
  }
  const now = new Date()
  const added = await store.addEmailAddress({ accountId, address, now })
  const verified =
    added.outcome === 'added' || added.outcome === 'exists'
      ? await store.verifyEmailAddress({ accountId, address, now, makePrimary: true })
      : undefined
  if (verified?.outcome === 'verified') return { email: address }
  return {
    notice: `demo user ${username}: ${address} is verified by another account; ${username} has no address (password resets by mail cannot reach them)`,
  }
}

/**
 * Creates the demo users' accounts when they are missing (argon2id hashes of their derived passwords: the
 * account and its password method in one transaction), gives them their verified addresses, and binds
 * them in the directory the tenant pages use.
 */
export async function seedDemoUsers(input: {
  readonly local: LocalAccounts
  readonly store: PostgresAccountStore
  readonly directory: DemoDirectory
  readonly seed: Uint8Array
  /** Where a demo user that cannot get its address is said (stderr). */
  readonly warn?: (notice: string) => void
}): Promise<readonly SeededUser[]> {
  const seeded: SeededUser[] = []
  for (const user of DEMO_USERS) {
    const accountId = demoAccountId(user.username)
    let password: string | undefined
    if ((await input.store.getAccount(accountId)) === null) {
      password = demoPassword(input.seed, user.username)
      const outcome = await input.store.createAccount({
        accountId,
        username: user.username,
        passwordHash: await input.local.hasher.hash(password),
        now: new Date(),
      })
      if (outcome.outcome !== 'created') throw new Error(`demo user ${user.username}: ${outcome.outcome}`)
    }
    const address = await seedDemoAddress(input.store, accountId, user.username)
    if (address.notice !== undefined) input.warn?.(address.notice)
    input.directory.bind(accountId, user.username)
    seeded.push({
      username: user.username,
      accountId,
      ...(password === undefined ? {} : { password }),
      ...(address.email === undefined ? {} : { email: address.email }),
    })
  }
  return seeded
}
