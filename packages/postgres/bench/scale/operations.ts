// The per-request operations of the scale benchmark, through the stores' public API, on a database
// filled by the scale fixture. Each operation times only its own part (set-up, such as putting back what
// the previous call consumed, is outside the clock) and picks a different account on every call, spread
// over the whole table, so a large table is read where it is cold as well as where it is warm.
import { randomBytes } from 'node:crypto'
import { scaleIds } from '@portcullis/database-tooling/scale-fixture'
import {
  PostgresAccountStore,
  PostgresApiKeyStore,
  type PostgresClient,
  PostgresOrganizationStore,
  PostgresPasskeyChallengeStore,
  PostgresPasskeyStore,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
  PostgresTotpStore,
} from '../../src/index.js'

export interface ScaleOperation {
  readonly id: string
  readonly what: string
  /** Runs call number `k` against a fixture of `accounts` accounts; answers the milliseconds it timed. */
  run(k: number): Promise<number>
}

const timed = async (work: () => Promise<unknown>): Promise<number> => {
  const started = performance.now()
  await work()
  return performance.now() - started
}

/** Account number for call `k`: a stride through 1..accounts (the stride is prime, so calls spread). */
const spread = (k: number, accounts: number) => 1 + ((k * 7919 + 13) % accounts)
/** An account with a passkey and TOTP (numbers divisible by 10). */
const tenth = (k: number, accounts: number) => 10 * spread(k, accounts / 10)

function must(condition: unknown, what: string): void {
  if (!condition) throw new Error(`scale benchmark: ${what}`)
}

export function scaleOperations(client: PostgresClient, accounts: number): readonly ScaleOperation[] {
  const sessions = new PostgresSessionStore({ client })
  const accountStore = new PostgresAccountStore({ client })
  const apiKeys = new PostgresApiKeyStore({ client })
  const refresh = new PostgresRefreshTokenStore({ client })
  const limits = new PostgresRateLimitStore({ client })
  const totp = new PostgresTotpStore({ client })
  const passkeys = new PostgresPasskeyStore({ client })
  const challenges = new PostgresPasskeyChallengeStore({ client })
  const organizations = new PostgresOrganizationStore({ client })
  const now = () => new Date()
  const liveToken = new Map<number, string>()
  const sessionRecord = (i: number, digest: string, handle: string) => ({
    digest,
    handle,
    accountId: scaleIds.account(i),
    securityEpoch: 1,
    createdAt: now(),
    lastSeenAt: now(),
    idleExpiresAt: new Date(Date.now() + 86_400_000),
    absoluteExpiresAt: new Date(Date.now() + 2 * 86_400_000),
  })
  let deletions = 0
  return [
    {
      id: 'memberships-read',
      what: "a member's tenants on a resolver cache miss (membershipsOf, one indexed read)",
      run: (k) =>
        timed(async () => {
          const i = spread(k, accounts)
          const memberships = await organizations.membershipsOf(scaleIds.account(i))
          must(memberships.length >= 1, `account ${i} has no membership`)
        }),
    },
    {
      id: 'session-read',
      what: 'session read on a cache miss, as strict mode does on every request (getWithAccountEpoch)',
      run: (k) =>
        timed(async () => {
          const i = spread(k, accounts)
          const read = await sessions.getWithAccountEpoch(scaleIds.session(i, 2), now())
          must(read?.accountEpoch === 1, `session ${i}/2 was not read`)
        }),
    },
    {
      id: 'password-sign-in',
      what: 'password sign-in, store part: rate-limit window, find the password, create the session',
      run: (k) =>
        timed(async () => {
          const i = spread(k, accounts)
          await limits.consume({
            key: scaleIds.rateLimitKey(i),
            limit: 1_000_000,
            windowSeconds: 900,
            now: now(),
          })
          const password = await accountStore.findPassword({ username: scaleIds.username(i) })
          must(password?.accountId === scaleIds.account(i), `no password for ${i}`)
          const digest = randomBytes(32).toString('hex')
          await sessions.create({ session: sessionRecord(i, digest, randomBytes(16).toString('base64url')) })
        }),
    },
    {
      id: 'api-key-cold',
      what: 'cold API-key verification, store part (one lookup by key id, no digest memo)',
      run: (k) =>
        timed(async () => {
          const i = spread(k, accounts)
          must((await apiKeys.get(scaleIds.apiKey(i)))?.ownerId === scaleIds.account(i), `no key ${i}`)
        }),
    },
    {
      id: 'refresh-rotate',
      what: 'refresh-token rotation (the CAS of one family)',
      run: (k) =>
        timed(async () => {
          const i = spread(k, accounts)
          const next = randomBytes(32).toString('hex')
          const outcome = await refresh.rotate({
            presentedDigest: liveToken.get(i) ?? scaleIds.refreshToken(i),
            next: { digest: next, expiresAt: new Date(Date.now() + 3_600_000) },
            now: now(),
          })
          must(outcome.outcome === 'rotated', `family ${i}: ${outcome.outcome}`)
          liveToken.set(i, next)
        }),
    },
    {
      id: 'logout-by-sid',
      what: 'back-channel logout by sid (revoke({ handleTags })); the session is put back untimed',
      run: async (k) => {
        const i = spread(k, accounts)
        const tags = scaleIds.sessionTags(i)
        const took = await timed(async () => {
          must((await sessions.revoke({ handleTags: [tags.session] })) === 1, `no session with sid ${i}`)
        })
        const handle = `${tags.subject}${tags.session}${randomBytes(16).toString('base64url').slice(0, 22)}`
        await sessions.create({ session: sessionRecord(i, scaleIds.session(i, 1), handle) })
        return took
      },
    },
    {
      id: 'epoch-bump',
      what: 'security epoch bump (bumpSecurityEpoch)',
      run: (k) =>
        timed(async () => {
          const i = spread(k, accounts)
          must(
            (await accountStore.bumpSecurityEpoch({ accountId: scaleIds.account(i), now: now() })) !== null,
            'bump',
          )
        }),
    },
    {
      id: 'totp-verify',
      what: 'TOTP verification, store part: read the enrollment, claim the time step',
      run: (k) =>
        timed(async () => {
          const i = tenth(k, accounts)
          const enrollment = await totp.getTotpEnrollment(scaleIds.account(i))
          must(enrollment?.status === 'enabled', `no TOTP for ${i}`)
          const step = Math.floor(Date.now() / 30_000) + k
          await totp.useTotpStep({ accountId: scaleIds.account(i), step })
        }),
    },
    {
      id: 'passkey-sign-in',
      what: 'passkey sign-in, store part: store and consume the challenge, find the passkey, record its use',
      run: (k) =>
        timed(async () => {
          const i = tenth(k, accounts)
          const key = {
            challengeDigest: randomBytes(32).toString('base64url'),
            bindingDigest: randomBytes(32).toString('base64url'),
          }
          const created = now()
          await challenges.createChallenge({
            ...key,
            ceremony: 'authentication',
            accountId: null,
            sessionDigest: null,
            purpose: null,
            createdAt: created,
            expiresAt: new Date(created.getTime() + 300_000),
          })
          must((await challenges.consumeChallenge(key, now())) !== null, 'challenge')
          const passkey = await passkeys.findPasskey(scaleIds.passkey(i))
          must(passkey?.accountId === scaleIds.account(i), `no passkey ${i}`)
          const counter = passkey?.counter ?? 0
          await passkeys.recordPasskeyUse({
            credentialId: scaleIds.passkey(i),
            expectedCounter: counter,
            counter: counter + 1,
            backedUp: true,
            now: now(),
          })
        }),
    },
    {
      id: 'delete-account',
      what: 'deleteAccount of an account with 20 sessions, 5 API keys and an identity (made untimed)',
      run: async () => {
        const accountId = `bench-delete-${process.pid}-${deletions++}`
        await client.pool.query(
          `with account as (
             insert into portcullis_accounts (account_id, created_at, security_epoch, status, updated_at)
             values ($1, now(), 1, 'active', now()) returning account_id),
           link as (
             insert into portcullis_oauth_links (provider_account_id, account_id, provider, issuer, subject,
               grant_scopes, linked_at, updated_at)
             select 'pa-' || account_id, account_id, 'scale-idp', 'https://idp.scale.example', 'sub-' || account_id,
                    array['openid'], now(), now() from account returning provider_account_id),
           sessions as (
             insert into portcullis_sessions (digest, handle, account_id, security_epoch, created_at, last_seen_at,
               idle_expires_at, absolute_expires_at)
             select md5(account_id || s) || md5(account_id || s || '~'), left(md5(account_id || 'h' || s), 22), account_id, 1,
                    now(), now(), now() + interval '1 day', now() + interval '2 days'
               from account cross join generate_series(1, 20) as s returning digest)
           insert into portcullis_api_keys (key_id, owner_id, owner_kind, digest, pepper_version, restrictions, created_at)
           select left(md5(account_id || 'k' || n), 16), account_id, 'user', sha256((account_id || n)::bytea), 'pepper-1',
                  '{}'::jsonb, now()
             from account cross join generate_series(1, 5) as n`,
          [accountId],
        )
        return timed(async () => {
          const outcome = await accountStore.deleteAccount({ accountId, now: now() })
          must(outcome.outcome === 'deleted', `deleteAccount: ${outcome.outcome}`)
        })
      },
    },
  ]
}
