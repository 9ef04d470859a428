import { accounts } from '@portcullis/core/oauth'
import {
  type AESGCMOAuthTransactionProtector,
  parseProtectedEnvelope,
  serializeProtectedEnvelope,
} from '@portcullis/core/protection'
import type { PostgresClient } from '@portcullis/postgres'

/** Counts of one re-encryption pass. */
export interface ReencryptionReport {
  /** Envelopes looked at (token vault and revocation retries). */
  readonly scanned: number
  /** Re-sealed under the active key. */
  readonly resealed: number
  /** Already under the active key. */
  readonly current: number
  /** Changed by a concurrent writer between read and write (the writer sealed under its active key). */
  readonly raced: number
  /** Did not open (unknown key, damaged row): left as they are, to investigate. */
  readonly failed: number
}

export interface ReencryptionOptions {
  readonly batchSize?: number
  /** Called after each batch with envelopes done so far and the total at the start. */
  readonly onProgress?: (done: number, total: number) => void
}

type Pool = Pick<PostgresClient, 'pool'>['pool']

interface Table {
  readonly name: string
  readonly key: string
  readonly columns: string
  readonly aad: (row: Record<string, string>) => Uint8Array
  /** Extra condition of the compare-and-swap (the vault row's version). */
  readonly guard?: (row: Record<string, string>) => { readonly sql: string; readonly value: string }
}

// The token vault binds each envelope to (provider, client, provider account, version); retries to
// (provider, client, provider account, retry id): the same associated data the stores use.
const TABLES: readonly Table[] = [
  {
    name: 'portcullis_oauth_token_vault',
    key: 'provider_account_id',
    columns: 'provider_account_id, provider, client_id, version::text as version, envelope',
    aad: (row) =>
      accounts.vaultAssociatedData(
        row.provider ?? '',
        row.client_id ?? '',
        row.provider_account_id ?? '',
        Number(row.version),
      ),
    guard: (row) => ({ sql: 'version = $4', value: row.version ?? '' }),
  },
  {
    name: 'portcullis_oauth_revocation_retries',
    key: 'retry_id',
    columns: 'retry_id, provider, client_id, provider_account_id, envelope',
    aad: (row) =>
      accounts.retryAssociatedData(
        row.provider ?? '',
        row.client_id ?? '',
        row.provider_account_id ?? '',
        row.retry_id ?? '',
      ),
  },
]

/** Envelopes per key version: token vault, revocation retries and live OAuth transactions. */
export async function envelopeCounts(client: Pick<PostgresClient, 'pool'>): Promise<Map<string, number>> {
  const version = (column: string) => `substring(${column} from '^pe1\\.(.*)\\.[A-Za-z0-9_-]+$')`
  const { rows } = await client.pool.query<{ version: string; count: string }>(
    `select version, count(*)::text as count from (
       select ${version('envelope')} as version from portcullis_oauth_token_vault where envelope is not null
       union all select ${version('envelope')} from portcullis_oauth_revocation_retries
       union all select ${version('pkce_verifier_envelope')} from portcullis_oauth_transactions where expires_at > now()
       union all select ${version('nonce_envelope')} from portcullis_oauth_transactions
         where nonce_envelope is not null and expires_at > now()
     ) as envelopes group by version order by version`,
  )
  return new Map(rows.map((row) => [row.version ?? '(unreadable)', Number(row.count)]))
}

async function total(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ count: string }>(
    `select ((select count(*) from portcullis_oauth_token_vault where envelope is not null)
      + (select count(*) from portcullis_oauth_revocation_retries))::text as count`,
  )
  return Number(rows[0]?.count ?? 0)
}

/**
 * Re-seals every token-vault and revocation-retry envelope that is not under the protector's active key
 * (the "drain" step of the rotation runbook). Rows are read in key order in batches; each rewrite is a
 * compare-and-swap on the old envelope (and the vault version), so a concurrent refresh wins and is
 * counted as `raced`. OAuth transactions are not rewritten: they expire within 10 minutes.
 */
export async function reencryptVault(
  client: Pick<PostgresClient, 'pool'>,
  protector: AESGCMOAuthTransactionProtector,
  options: ReencryptionOptions = {},
): Promise<ReencryptionReport> {
  const batchSize = options.batchSize ?? 200
  const all = await total(client.pool)
  const counts = { scanned: 0, resealed: 0, current: 0, raced: 0, failed: 0 }
  for (const table of TABLES) {
    let cursor = ''
    for (;;) {
      const { rows } = await client.pool.query<Record<string, string>>(
        `select ${table.columns} from ${table.name}
          where envelope is not null and ${table.key} > $1 order by ${table.key} limit $2`,
        [cursor, batchSize],
      )
      for (const row of rows) {
        cursor = row[table.key] ?? cursor
        counts.scanned += 1
        const sealed = row.envelope ?? ''
        let next: string
        try {
          const envelope = parseProtectedEnvelope(sealed)
          if (!protector.needsReprotect(envelope)) {
            counts.current += 1
            continue
          }
          next = serializeProtectedEnvelope(await protector.reprotect(envelope, table.aad(row)))
        } catch {
          counts.failed += 1
          continue
        }
        const guard = table.guard?.(row)
        const written = await client.pool.query(
          `update ${table.name} set envelope = $1 where ${table.key} = $2 and envelope = $3${guard ? ` and ${guard.sql}` : ''}`,
          guard ? [next, cursor, sealed, guard.value] : [next, cursor, sealed],
        )
        if (written.rowCount === 1) counts.resealed += 1
        else counts.raced += 1
      }
      options.onProgress?.(counts.scanned, Math.max(all, counts.scanned))
      if (rows.length < batchSize) break
    }
  }
  return counts
}
