// Why a lookup slows down as the table grows, when its plan does not change: the pages it touches. The
// statement a store sends (captured from the wire) is run again under EXPLAIN (ANALYZE, BUFFERS) for
// accounts it has not read yet, spread over the table; shared buffer hits and reads (pages that were not
// in Postgres's buffer cache) are summed per call, with the plan's node types.

import type { PostgresClient } from '../../src/index.js'
import { captureStatements } from '../../test/support/query-plans.js'

export interface BufferProfile {
  readonly hitsPerCall: number
  readonly readsPerCall: number
  readonly plan: string
}

interface Explained {
  readonly 'Node Type': string
  readonly 'Index Name'?: string
  readonly 'Shared Hit Blocks': number
  readonly 'Shared Read Blocks': number
  readonly Plans?: readonly Explained[]
}

const shape = (node: Explained): string =>
  [
    `${node['Node Type']}${node['Index Name'] ? ` ${node['Index Name']}` : ''}`,
    ...(node.Plans ?? []).map(shape),
  ].join(' > ')

/**
 * Runs `call(key(0))` once to capture its statement, then EXPLAIN (ANALYZE, BUFFERS) of that statement
 * with `key(0)` swapped for `key(k)`, for k = 1..calls.
 */
export async function bufferProfile(
  client: PostgresClient,
  key: (k: number) => string,
  call: (value: string) => Promise<unknown>,
  calls: number,
): Promise<BufferProfile> {
  const captured = new Map<string, { text: string; values: readonly unknown[]; source: string }>()
  await captureStatements(captured, 'profile', () => call(key(0)))
  const statement = [...captured.values()].find((each) => each.values.includes(key(0)))
  if (statement === undefined) throw new Error('no captured statement carries the key')
  let hits = 0
  let reads = 0
  let plan = ''
  for (let k = 1; k <= calls; k++) {
    const values = statement.values.map((value) => (value === key(0) ? key(k) : value))
    // ANALYZE runs the statement: a write is rolled back.
    const connection = await client.pool.connect()
    try {
      await connection.query('begin')
      const explained = await connection.query<{ 'QUERY PLAN': [{ Plan: Explained }] }>(
        `explain (analyze, buffers, format json) ${statement.text}`,
        [...values],
      )
      await connection.query('rollback')
      const root = explained.rows[0]?.['QUERY PLAN'][0]?.Plan
      if (root === undefined) throw new Error('no plan')
      hits += root['Shared Hit Blocks']
      reads += root['Shared Read Blocks']
      plan = shape(root)
    } finally {
      connection.release()
    }
  }
  return { hitsPerCall: hits / calls, readsPerCall: reads / calls, plan }
}
