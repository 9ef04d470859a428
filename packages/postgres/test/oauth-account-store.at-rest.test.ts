import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { accountFixtures, codeOf, NOW } from './support/accounts.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())
const { store, identity, tokens, passwordAccount } = accountFixtures(db)

describe('PostgresOAuthAccountStore at rest', () => {
  it('keeps no token in plaintext anywhere in its tables, vault or retries', async () => {
    const accountStore = store()
    const retained = tokens('at-rest')
    const login = await accountStore.login({
      identity: identity(),
      grant: { scopes: ['openid'] },
      tokens: retained,
      provisionUnknown: true,
      now: NOW,
    })
    const staged = tokens('staged')
    const other = await accountStore.login({
      identity: identity(),
      grant: { scopes: ['openid'] },
      tokens: staged,
      provisionUnknown: true,
      now: NOW,
    })
    await accountStore.stageRevocationRetry({
      providerAccountId: other.link.providerAccountId,
      expectedVersion: other.tokens?.version ?? 0,
      tokens: staged,
      failedTokenTypes: ['refresh_token', 'access_token'],
      occurredAt: NOW,
    })
    const dump = await db.client.pool.query<{ row: string }>(`
      select t::text as row from portcullis_oauth_token_vault t
      union all select t::text from portcullis_oauth_revocation_retries t
      union all select t::text from portcullis_oauth_links t
      union all select t::text from portcullis_accounts t`)
    const text = dump.rows.map((row) => row.row).join('\n')
    expect(text).toContain(login.link.providerAccountId)
    for (const secret of [retained, staged].flatMap((set) => [
      set.accessToken,
      set.refreshToken,
      set.idToken,
    ])) {
      expect(text).not.toContain(secret)
      expect(text).not.toContain(Buffer.from(secret ?? '').toString('base64url'))
    }
    expect(text).toMatch(/pe1\.test-1\./)
  })

  it('a damaged envelope column reads as oauth.vault.unavailable, never as a crash or plaintext', async () => {
    const accountStore = store()
    const login = await accountStore.login({
      identity: identity(),
      grant: { scopes: ['openid'] },
      tokens: tokens('damaged'),
      provisionUnknown: true,
      now: NOW,
    })
    const id = login.link.providerAccountId
    for (const damaged of [
      'not an envelope',
      'pe1.test-1.AAAA',
      'pe1.unknown-key.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    ]) {
      await db.client.db.execute(
        sql`update portcullis_oauth_token_vault set envelope = ${damaged} where provider_account_id = ${id}`,
      )
      expect(await codeOf(accountStore.getTokens(id))).toBe('oauth.vault.unavailable')
    }
  })

  it('unlink keeps a tombstone: the version survives and a stale handle never swaps again', async () => {
    const accountStore = store()
    const accountId = `account-${Date.now()}-tombstone`
    await passwordAccount(accountId)
    const linked = await accountStore.link({
      accountId,
      identity: identity(),
      grant: { scopes: ['openid'] },
      tokens: tokens('tomb'),
      now: NOW,
    })
    const id = linked.link.providerAccountId
    const swapped = await accountStore.replaceTokens({
      providerAccountId: id,
      expectedVersion: linked.tokens?.version ?? 0,
      tokens: tokens('tomb-2'),
    })
    expect(
      (await accountStore.unlink({ accountId, provider: 'example-idp', providerAccountId: id })).status,
    ).toBe('unlinked')
    const row = await db.client.pool.query(
      'select version, envelope, scopes from portcullis_oauth_token_vault where provider_account_id = $1',
      [id],
    )
    expect(row.rows).toEqual([{ version: String(swapped?.version), envelope: null, scopes: null }])
    for (const version of [linked.tokens?.version ?? 0, swapped?.version ?? 0]) {
      expect(
        await accountStore.replaceTokens({
          providerAccountId: id,
          expectedVersion: version,
          tokens: tokens('x'),
        }),
      ).toBeNull()
    }
    expect(await accountStore.getTokens(id)).toBeNull()
  })

  it('a registration with another client id neither reads, swaps nor drains the tokens of this one', async () => {
    const mine = store({ clientId: 'client-a' })
    const rotated = store({ clientId: 'client-b' })
    const foreign = store({ provider: 'other-idp', clientId: 'client-a' })
    const retained = tokens('client-a')
    const login = await mine.login({
      identity: identity(),
      grant: { scopes: ['openid'] },
      tokens: retained,
      provisionUnknown: true,
      now: NOW,
    })
    const id = login.link.providerAccountId
    const version = login.tokens?.version ?? 0
    expect(await rotated.getTokens(id)).toBeNull()
    expect(
      await rotated.replaceTokens({ providerAccountId: id, expectedVersion: version, tokens: tokens('b') }),
    ).toBeNull()
    expect(await rotated.discardTokens({ providerAccountId: id })).toBe(false)
    expect(await foreign.getTokens(id)).toBeNull()
    const staged = await mine.stageRevocationRetry({
      providerAccountId: id,
      expectedVersion: version,
      tokens: retained,
      failedTokenTypes: ['access_token'],
      occurredAt: new Date('2000-01-01T00:00:00Z'),
    })
    const at = new Date('2000-01-02T00:00:00Z')
    for (const other of [rotated, foreign]) {
      const claimed = await other.claimRevocationRetries({ now: at, leaseSeconds: 60, limit: 1000 })
      expect(claimed.some((retry) => retry.retryId === staged?.retryId)).toBe(false)
    }
    const claimed = await mine.claimRevocationRetries({ now: at, leaseSeconds: 60, limit: 1000 })
    const retry = claimed.find((candidate) => candidate.retryId === staged?.retryId)
    expect(retry?.tokens.accessToken).toBe(retained.accessToken)
    expect(
      await rotated.completeRevocationRetry({ retryId: retry?.retryId ?? '', claim: retry?.claim ?? '' }),
    ).toBe(false)
    expect(
      await mine.completeRevocationRetry({ retryId: retry?.retryId ?? '', claim: retry?.claim ?? '' }),
    ).toBe(true)
  })
})
