import { ConfigurationError, InvalidInputError } from '@portcullis/core'
import type {
  EnvelopeInventory,
  EnvelopeInventoryReport,
  EnvelopeLocationCount,
} from '@portcullis/core/protection'
import { type SQL, sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import { asStoreError } from '../client/database-error.js'
import type { PostgresClient } from '../client/postgres-client.js'
import { type Transaction, withConnection } from '../client/transaction.js'
import { SEALED_COLUMNS, type SealedColumn, sealedColumnName } from './sealed-columns.js'

export interface PostgresEnvelopeInventoryOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: Pick<PostgresClient, 'pool'>
  /** Clock that decides which OAuth transactions have expired; defaults to the system clock. */
  readonly clock?: () => Date
}

/**
 * The key version of a stored envelope, or null when none can be read (not `pe1.<label>.<more>`, the
 * label 1-64 of `A-Z a-z 0-9 . _ : -`). Only the first 70 characters are read (the tag, the longest
 * label, the dot and one ciphertext character), and the usual label without a dot takes `split_part`
 * and a short pattern; only a dotted label takes a regular expression, whose last dot ends the label.
 * A regular expression over whole envelopes costs minutes per million rows; this costs seconds. The
 * ciphertext is not validated: a damaged one still counts under its label, so its key is kept.
 */
function keyVersionOf(column: SealedColumn['column']): SQL {
  const head = sql`left(${column}, 70)`
  const part = (index: number) => sql`split_part(${head}, '.', ${sql.raw(String(index))})`
  return sql`case
    when left(${column}, 4) <> 'pe1.' then null
    when ${part(4)} = '' then case
      when ${part(3)} <> '' and ${part(2)} ~ '^[A-Za-z0-9_:-]+$' and length(${part(2)}) <= 64 then ${part(2)}
    end
    else substring(${head} from '^pe1\\.([A-Za-z0-9._:-]+)\\.[A-Za-z0-9_-]')
  end`
}

/** The count of one sealed column at `now` (exported for the query-plan test, not from the package). */
export function countQuery(sealed: SealedColumn, now: Date): SQL {
  const live = sealed.live === undefined ? sql`` : sql` and ${sealed.live(now)}`
  return sql`select ${keyVersionOf(sealed.column)} as key_version, count(*)::int as count
    from ${sealed.table} where ${sealed.column} is not null${live} group by 1`
}

async function countAll(tx: Transaction, now: Date): Promise<EnvelopeLocationCount[]> {
  const counted: EnvelopeLocationCount[] = []
  for (const sealed of SEALED_COLUMNS) {
    const result = await tx.execute<{ key_version: string | null; count: number }>(countQuery(sealed, now))
    const keyVersions: Record<string, number> = {}
    let unreadable = 0
    for (const row of result.rows) {
      if (row.key_version === null) unreadable += row.count
      else keyVersions[row.key_version] = row.count
    }
    counted.push({
      location: sealedColumnName(sealed),
      holding: sealed.holding,
      keyVersions,
      unreadable,
      method: sealed.method,
    })
  }
  return counted
}

/**
 * The `EnvelopeInventory` of the Postgres stores: every column of `SEALED_COLUMNS`, counted in one
 * read-only transaction (one snapshot), grouped by the key version in each envelope's prefix. Values
 * that are not an envelope's string form are counted as unreadable. OAuth transactions at or past their
 * expiry are not counted. Each location's `method` says how it was read.
 */
export class PostgresEnvelopeInventory implements EnvelopeInventory {
  readonly #client: PostgresEnvelopeInventoryOptions['client']
  readonly #clock: () => Date

  constructor(options: PostgresEnvelopeInventoryOptions) {
    if (typeof options?.client?.pool?.connect !== 'function') {
      throw new ConfigurationError(
        'postgres.inventory_options',
        'PostgresEnvelopeInventory needs a client from createPostgresClient',
      )
    }
    const clock = options.clock ?? (() => new Date())
    if (typeof clock !== 'function') {
      throw new ConfigurationError('postgres.inventory_options', 'clock must be a function')
    }
    this.#client = options.client
    this.#clock = clock
  }

  async count(): Promise<EnvelopeInventoryReport> {
    const now = this.#clock()
    if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
      throw new InvalidInputError('postgres.inventory_clock', 'clock() must return a valid Date')
    }
    let locations: EnvelopeLocationCount[]
    try {
      locations = await withConnection(this.#client.pool, (connection) =>
        drizzle({ client: connection }).transaction((tx) => countAll(tx, now), {
          isolationLevel: 'repeatable read',
          accessMode: 'read only',
        }),
      )
    } catch (error) {
      throw asStoreError(error)
    }
    return { countedAt: now, locations }
  }
}
