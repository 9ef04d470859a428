// The scale fixture's rows are ones the real stores read: a sample of every kind goes back through the
// stores' public API, and the fill leaves every index and constraint exactly as the migrations made them.
import { accounts as oauthAccounts } from '@portcullis/core/oauth'
import { fillScaleFixture, SCALE_TABLES, scaleIds } from '@portcullis/database-tooling/scale-fixture'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  PostgresAccountStore,
  PostgresApiKeyStore,
  PostgresOAuthServerStore,
  PostgresPasskeyChallengeStore,
  PostgresPasskeyStore,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
  PostgresStepUpStore,
  PostgresTotpStore,
} from '../src/index.js'
import { migratedDatabase, realProtector } from './support/database.js'

const ACCOUNTS = 2_000
const db = await migratedDatabase()
afterAll(() => db.close())
const client = db.client
const now = new Date()

/** Every index and key/foreign-key constraint of the schema, as SQL definitions. */
async function schemaDefinitions(): Promise<string[]> {
  const result = await client.pool.query<{ definition: string }>(
    `select pg_get_indexdef(indexrelid) as definition from pg_index
      where indrelid::regclass::text like 'portcullis_%'
     union all
     select conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) from pg_constraint
      where conrelid::regclass::text like 'portcullis_%'
     order by 1`,
  )
  return result.rows.map((row) => row.definition)
}

let before: string[] = []
let report: Awaited<ReturnType<typeof fillScaleFixture>>
beforeAll(async () => {
  before = await schemaDefinitions()
  report = await fillScaleFixture(db.database.connectionString, { accounts: ACCOUNTS, now })
}, 120_000)

describe('fillScaleFixture', () => {
  it('fills every table to its size and leaves the indexes and constraints as the migrations made them', async () => {
    expect(await schemaDefinitions()).toEqual(before)
    expect(before.length).toBeGreaterThan(30)
    for (const table of SCALE_TABLES) {
      expect(report.rows[table.table], table.table).toBe(Math.round(ACCOUNTS * table.perAccount))
    }
    const analyzed = await client.pool.query<{ relname: string }>(
      `select relname from pg_stat_user_tables where relname = any($1) and last_analyze is null`,
      [SCALE_TABLES.map((table) => table.table)],
    )
    expect(analyzed.rows).toEqual([])
  })

  it('writes accounts, passwords, sessions and refresh tokens the local-account stores read', async () => {
    const accounts = new PostgresAccountStore({ client })
    const account = await accounts.getAccount(scaleIds.account(1234))
    expect(account).toMatchObject({ accountId: scaleIds.account(1234), securityEpoch: 1, status: 'active' })
    const password = await accounts.findPassword({ username: scaleIds.username(1234) })
    expect(password?.accountId).toBe(scaleIds.account(1234))
    const kinds = (await accounts.listSignInMethods(scaleIds.account(1234))).map((method) => method.kind)
    expect(kinds.sort()).toEqual(['identity', 'password'])

    const sessions = new PostgresSessionStore({ client })
    const read = await sessions.getWithAccountEpoch(scaleIds.session(1234, 2), now)
    expect(read?.session.accountId).toBe(scaleIds.account(1234))
    expect(read?.accountEpoch).toBe(1)
    expect(await sessions.list({ accountId: scaleIds.account(1234), now })).toHaveLength(3)
    // Session 3 of every hundredth account is idle-expired: refused, as the store refuses any expired row.
    expect(await sessions.get(scaleIds.session(1200, 3), now)).toBeNull()
    const { subject, session } = scaleIds.sessionTags(77)
    expect(await sessions.revoke({ handleTags: [subject, session] })).toBe(1)
    expect(await sessions.get(scaleIds.session(77, 1), now)).toBeNull()

    const refresh = new PostgresRefreshTokenStore({ client })
    const rotated = await refresh.rotate({
      presentedDigest: scaleIds.refreshToken(55),
      next: { digest: scaleIds.refreshToken(ACCOUNTS + 55), expiresAt: new Date(now.getTime() + 60_000) },
      now,
    })
    expect(rotated.outcome).toBe('rotated')

    const limits = new PostgresRateLimitStore({ client })
    const decision = await limits.consume({
      key: scaleIds.rateLimitKey(6),
      limit: 10,
      windowSeconds: 900,
      now,
    })
    expect(decision.count).toBe(1 + (6 % 4) + 1)
  })

  it('writes API keys, passkeys, TOTP, step-up credentials and challenges their stores read', async () => {
    const key = await new PostgresApiKeyStore({ client }).get(scaleIds.apiKey(321))
    expect(key?.ownerId).toBe(scaleIds.account(321))
    expect(key?.digest).toEqual(scaleIds.apiKeyDigest(321))

    const passkeys = new PostgresPasskeyStore({ client })
    expect((await passkeys.findPasskey(scaleIds.passkey(40)))?.accountId).toBe(scaleIds.account(40))
    expect(await passkeys.listPasskeys(scaleIds.account(40))).toHaveLength(1)
    expect(await passkeys.findPasskey(scaleIds.passkey(41))).toBeNull()

    const totp = new PostgresTotpStore({ client })
    expect((await totp.getTotpEnrollment(scaleIds.account(40)))?.status).toBe('enabled')
    expect(await totp.countRecoveryCodes(scaleIds.account(40))).toBe(10)
    const candidates = [scaleIds.recoveryCode(40, 3)]
    expect(await totp.redeemRecoveryCode({ accountId: scaleIds.account(40), candidates })).toBe(true)

    const stepUp = await new PostgresStepUpStore({ client }).take(scaleIds.stepUp(41))
    expect(stepUp).toMatchObject({
      accountId: scaleIds.account(41),
      sessionDigest: scaleIds.stepUpSession(41),
    })

    const challenge = await new PostgresPasskeyChallengeStore({ client }).consumeChallenge(
      scaleIds.challenge(103),
      now,
    )
    expect(challenge?.ceremony).toBe('authentication')
  })

  it('writes grants the authorization server store reads, and interactions it finds by uid', async () => {
    const store = new PostgresOAuthServerStore({ client, clock: () => now.getTime() })
    expect(await store.status('grant-11')).toEqual({
      grantId: 'grant-11',
      accountId: scaleIds.account(11),
      clientId: 'https://client.scale.example/11.json',
    })
    expect(await store.status('grant-12')).toBeUndefined()
    const [grant] = await store.list(scaleIds.account(21))
    expect(grant).toMatchObject({ grantId: 'grant-21', scopes: ['resources:read'] })
    expect((await store.find('Interaction', { uid: 'uid-102' }))?.id).toBe('interaction-102')
  })

  it('writes identity links the OAuth store resolves; their retained tokens open once sealed through the API', async () => {
    const protector = realProtector()
    const oauth = new PostgresAccountStore({ client }).oauth({
      provider: 'scale-idp',
      clientId: 'scale-client',
      protector,
    })
    const link = await oauth.resolveLink({ accountId: scaleIds.account(9), provider: 'scale-idp' })
    expect(link?.providerAccountId).toBe(scaleIds.providerAccount(9))
    // The filler envelope is sized like a real one but bound to no row: it never opens.
    await expect(oauth.getTokens(scaleIds.providerAccount(9))).rejects.toMatchObject({
      code: 'oauth.vault.unavailable',
    })
    const tokens = new oauthAccounts.ProviderTokenSet({
      accessToken: 'scale-access-token',
      scopes: ['openid', 'email'],
      expiresAt: new Date(now.getTime() + 3_600_000),
      refreshToken: 'scale-refresh-token',
    })
    const replaced = await oauth.replaceTokens({
      providerAccountId: scaleIds.providerAccount(9),
      expectedVersion: 1,
      tokens,
    })
    expect(replaced?.version).toBe(2)
    const opened = await oauth.getTokens(scaleIds.providerAccount(9))
    expect(opened?.tokens.refreshToken).toBe('scale-refresh-token')
  })

  it('refuses a size it cannot mean', async () => {
    await expect(fillScaleFixture(db.database.connectionString, { accounts: 0 })).rejects.toThrow(RangeError)
  })
})
