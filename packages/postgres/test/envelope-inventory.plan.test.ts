import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { countQuery } from '../src/envelopes/inventory.js'
import { PostgresEnvelopeInventory, SEALED_COLUMNS, sealedColumnName } from '../src/index.js'
import { migratedDatabase } from './support/database.js'

// The inventory says how it reads each column; for the OAuth transactions and the one-time codes it
// claims an index range scan over the live rows only. With 20,000 expired rows and a handful of live
// ones, the plan of each such count must go through the expires_at index and never scan the table.

const db = await migratedDatabase()
afterAll(() => db.close())

const envelope = (version: string) => `pe1.${version}.${Buffer.from('sealed').toString('base64url')}`

async function insertTransactions(count: number, createdAt: string, version: string): Promise<void> {
  await db.client.pool.query(
    `insert into portcullis_oauth_transactions
       (state_digest, binding_digest, provider, operation, redirect_uri, return_to, requested_scopes,
        pkce_verifier_envelope, nonce_envelope, created_at, expires_at)
     select sha256(('s' || g || $3)::bytea), sha256(('b' || g)::bytea), 'idp', 'login', 'https://app/cb', '/',
            '{}', $2, $2, $1::timestamptz, $1::timestamptz + interval '10 minutes'
       from generate_series(1, $4) as g`,
    [createdAt, envelope(version), version, count],
  )
}

describe('the envelope inventory on many expired OAuth transactions', () => {
  it('counts the live ones through the expires_at index, and only them', async () => {
    const now = new Date()
    await insertTransactions(20_000, new Date(now.getTime() - 3_600_000).toISOString(), 'old')
    await insertTransactions(3, new Date(now.getTime() - 60_000).toISOString(), 'live')
    await db.client.pool.query('analyze portcullis_oauth_transactions')
    const report = await new PostgresEnvelopeInventory({ client: db.client, clock: () => now }).count()
    const transactions = report.locations.filter((location) => location.holding === 'oauth-transaction')
    expect(transactions.map((location) => location.keyVersions)).toEqual([{ live: 3 }, { live: 3 }])
    for (const sealed of SEALED_COLUMNS.filter((column) => column.holding === 'oauth-transaction')) {
      const plan = await db.client.db.execute<{ 'QUERY PLAN': string }>(
        sql`explain ${countQuery(sealed, now)}`,
      )
      const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n')
      expect(text, sealedColumnName(sealed)).toContain('portcullis_oauth_transactions_expires_at_idx')
      expect(text, sealedColumnName(sealed)).not.toContain('Seq Scan')
      expect(sealed.method).toContain('index range scan on expires_at')
    }
  })
})

async function insertCodes(count: number, expiresAt: string, version: string): Promise<void> {
  await db.client.pool.query(
    `insert into portcullis_one_time_codes
       (id, purpose, account_id, address, digest, key_version, attempts, max_attempts, created_at,
        expires_at, payload)
     select 'code-' || $3 || '-' || lpad(g::text, 20, '0'), 'email-change-undo', null, 'ada@example.com',
            sha256(('d' || g || $3)::bytea), 1, 0, 5, $1::timestamptz - interval '7 days', $1::timestamptz, $2
       from generate_series(1, $4) as g`,
    [expiresAt, envelope(version), version, count],
  )
}

describe('the envelope inventory on many expired one-time codes', () => {
  it('counts the payloads of live codes through the expires_at index, and only them', async () => {
    const now = new Date()
    await insertCodes(20_000, new Date(now.getTime() - 3_600_000).toISOString(), 'old')
    await insertCodes(2, new Date(now.getTime() + 3_600_000).toISOString(), 'live')
    await db.client.pool.query('analyze portcullis_one_time_codes')
    const report = await new PostgresEnvelopeInventory({ client: db.client, clock: () => now }).count()
    const codes = report.locations.filter((location) => location.holding === 'one-time-code')
    expect(codes.map((location) => location.keyVersions)).toEqual([{ live: 2 }])
    const [sealed] = SEALED_COLUMNS.filter((column) => column.holding === 'one-time-code')
    if (sealed === undefined) throw new Error('no sealed column of one-time codes')
    const plan = await db.client.db.execute<{ 'QUERY PLAN': string }>(sql`explain ${countQuery(sealed, now)}`)
    const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n')
    expect(text).toContain('portcullis_one_time_codes_expiry')
    expect(text).not.toContain('Seq Scan')
    expect(sealed.method).toContain('index range scan on expires_at')
  })
})
