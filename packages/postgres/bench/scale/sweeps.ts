// The sweep at scale: expired sessions, passkey challenges and rate-limit windows added to the large
// fixture, then `sweepExpired` with its default batch; every batch is one statement in its own
// transaction, and each is timed on its own (the budget is per transaction, not per sweep).
import { type PostgresClient, sweepExpired } from '../../src/index.js'

export interface SweepTiming {
  readonly table: string
  readonly batches: number
  readonly rows: number
  readonly medianMs: number
  readonly maxMs: number
}

/** Adds `rows` expired rows to each swept table (set-based), then sweeps them, timing each batch. */
export async function timeSweep(client: PostgresClient, rows: number): Promise<SweepTiming[]> {
  const expired = `now() - interval '1 minute' - (g % 3600) * interval '1 second'`
  await client.pool.query(
    `insert into portcullis_sessions (digest, handle, account_id, security_epoch, created_at, last_seen_at,
       idle_expires_at, absolute_expires_at)
     select md5('expired-' || g) || md5('expired~' || g), left(md5('expired-handle-' || g), 22), 'account-' || (1 + g % 1000),
            1, now() - interval '2 days', now() - interval '1 day', ${expired}, now() + interval '1 day'
       from generate_series(1, $1::int) as g`,
    [rows],
  )
  await client.pool.query(
    `insert into portcullis_passkey_challenges (challenge_digest, binding_digest, ceremony, created_at, expires_at)
     select left(md5('expired-challenge-' || g) || md5('x' || g), 43), left(md5('b' || g) || md5('y' || g), 43),
            'authentication', now() - interval '2 hours', ${expired}
       from generate_series(1, $1::int) as g`,
    [rows],
  )
  await client.pool.query(
    `insert into portcullis_rate_limits (limit_key, attempts, reset_at)
     select 'expired-window-' || g, 1, ${expired} from generate_series(1, $1::int) as g`,
    [rows],
  )
  await client.pool.query(
    'analyze portcullis_sessions, portcullis_passkey_challenges, portcullis_rate_limits',
  )
  const batches = new Map<string, number[]>()
  const deleted = new Map<string, number>()
  const query = client.pool.query.bind(client.pool)
  const timedPool = new Proxy(client.pool, {
    get(target, property, receiver) {
      if (property !== 'query') return Reflect.get(target, property, receiver)
      return async (text: string, values: unknown[]) => {
        const started = performance.now()
        const result = await query(text, values)
        const table = /^delete from (\w+)/.exec(text)?.[1] ?? 'other'
        batches.set(table, [...(batches.get(table) ?? []), performance.now() - started])
        deleted.set(table, (deleted.get(table) ?? 0) + (result.rowCount ?? 0))
        return result
      }
    },
  })
  await sweepExpired({ pool: timedPool }, { maxBatches: 1000 })
  return [...batches.entries()].map(([table, times]) => {
    const sorted = [...times].sort((a, b) => a - b)
    return {
      table,
      batches: times.length,
      rows: deleted.get(table) ?? 0,
      medianMs: sorted[Math.floor(sorted.length / 2)] ?? 0,
      maxMs: sorted.at(-1) ?? 0,
    }
  })
}
