import { accounts } from '@portcullis/core/oauth'
import { serializeProtectedEnvelope } from '@portcullis/core/protection'
import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { inspectPostgresOAuthAccountStore, PostgresOAuthAccountStore } from '../src/index.js'
import { migratedDatabase, realProtector } from './support/database.js'

// The Postgres store seals exactly as the core's memory store does (same plaintext encoding, same
// associated data): an envelope written by one opens in the other when provider, client, provider
// account and version (or retry id) agree, and in no other row.
const db = await migratedDatabase()
afterAll(() => db.close())

const protector = realProtector()
const registration = { provider: 'example-idp', clientId: 'client-1', protector }
const NOW = new Date('2031-03-04T05:06:07.000Z')

function tokens(label: string) {
  return new accounts.ProviderTokenSet({
    accessToken: `access-${label}`,
    refreshToken: `refresh-${label}`,
    idToken: `id-${label}`,
    scopes: ['openid', 'email'],
    expiresAt: '2031-03-04T06:06:07.123Z',
  })
}

/** A memory store with one linked identity (version 1), and the same link id in Postgres. */
async function twin(subject: string) {
  const memory = new accounts.MemoryOAuthAccountStore(registration)
  const identity = { provider: 'example-idp', issuer: 'https://idp.example/', subject }
  const login = await memory.login({
    identity,
    grant: { scopes: ['openid'] },
    tokens: tokens('memory'),
    provisionUnknown: true,
    now: NOW,
  })
  const id = login.link.providerAccountId
  await db.client.db.execute(sql`insert into portcullis_accounts (account_id, security_epoch, status, created_at, updated_at)
    values (${login.link.accountId}, 1, 'active', now(), now())`)
  await db.client.db.execute(sql`insert into portcullis_oauth_links
    (provider_account_id, account_id, provider, issuer, subject, grant_scopes, linked_at, updated_at)
    values (${id}, ${login.link.accountId}, 'example-idp', ${identity.issuer}, ${subject}, '{openid}', now(), now())`)
  const postgres = new PostgresOAuthAccountStore({ client: db.client, ...registration })
  const stored = await postgres.login({
    identity,
    grant: { scopes: ['openid'] },
    tokens: tokens('postgres'),
    provisionUnknown: false,
    now: NOW,
  })
  expect(stored.link.providerAccountId).toBe(id)
  expect([login.tokens?.version, stored.tokens?.version]).toEqual([1, 1])
  return { memory, postgres, id }
}

describe('vault codec compatibility with the core memory store', () => {
  it('a Postgres-sealed envelope opens in the memory store, and a memory-sealed one in Postgres', async () => {
    const { memory, postgres, id } = await twin('codec-vault')
    const pgInspector = inspectPostgresOAuthAccountStore(db.client)
    const memoryInspector = accounts.inspectMemoryOAuthAccountStore(memory)
    const fromPostgres = await pgInspector.readVaultEnvelope(id)
    const fromMemory = await memoryInspector.readVaultEnvelope(id)
    if (fromPostgres === null || fromMemory === null) throw new Error('no envelopes')
    expect(await memoryInspector.writeVaultEnvelope(id, fromPostgres)).toBe(true)
    expect(await pgInspector.writeVaultEnvelope(id, fromMemory)).toBe(true)
    expect((await memory.getTokens(id))?.tokens.accessToken).toBe('access-postgres')
    const opened = await postgres.getTokens(id)
    expect(opened?.tokens.accessToken).toBe('access-memory')
    expect(opened?.tokens.refreshToken).toBe('refresh-memory')
    expect(opened?.tokens.idToken).toBe('id-memory')
    expect(opened?.tokens.expiresAt.toISOString()).toBe('2031-03-04T06:06:07.123Z')
  })

  it('a retry staged by the memory store opens when claimed from Postgres', async () => {
    const { memory, postgres, id } = await twin('codec-retry')
    const staged = await memory.stageRevocationRetry({
      providerAccountId: id,
      expectedVersion: 1,
      tokens: tokens('retry'),
      failedTokenTypes: ['refresh_token'],
      occurredAt: new Date('2001-01-01T00:00:00Z'),
    })
    if (staged === null) throw new Error('not staged')
    const envelope = await accounts.inspectMemoryOAuthAccountStore(memory).readRetryEnvelope(staged.retryId)
    if (envelope === null) throw new Error('no retry envelope')
    await db.client.db.execute(sql`insert into portcullis_oauth_revocation_retries
      (retry_id, provider, client_id, provider_account_id, failed_token_types, occurred_at, envelope)
      values (${staged.retryId}, 'example-idp', 'client-1', ${id}, '{refresh_token}', '2001-01-01T00:00:00Z',
        ${serializeProtectedEnvelope(envelope)})`)
    const claimed = await postgres.claimRevocationRetries({ now: NOW, leaseSeconds: 60, limit: 1 })
    expect(claimed.map((retry) => [retry.retryId, retry.tokens.accessToken])).toEqual([
      [staged.retryId, 'access-retry'],
    ])
    expect(
      await postgres.completeRevocationRetry({ retryId: staged.retryId, claim: claimed[0]?.claim ?? '' }),
    ).toBe(true)
  })
})
