// Ad hoc (not run by `pnpm bench` or CI): how long `PostgresSessionStore.revoke({ handleTags })` (a
// back-channel logout) takes with N sessions stored, N from the command line (default 300 000).
//   DATABASE_URL=postgres://... npx tsx --conditions @portcullis/source bench/handle-tags-scale.ts 1000000 [--rebuild]
// (`--rebuild` also times the handle-tags migration's SQL on the filled table.)
// Fills N sessions set-based (a third tagged like provider sign-ins, the rest untagged), runs ANALYZE,
// then times logouts by `sub` + `sid`, by `sid` only and by `sub` only, each for a session that exists,
// with the statement the store sent before migration 9, the one it sends now and the store, interleaved.
import { createHash } from 'node:crypto'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { createPostgresClient, MIGRATIONS, migrate, PostgresSessionStore } from '../src/index.js'

const rows = Number(process.argv[2] ?? 300_000)
const ROUNDS = 9
/** The tag the SQL below computes: the first 11 base64url characters of SHA-256 of `value`. */
const tag = (value: string) => createHash('sha256').update(value).digest('base64url').slice(0, 11)
const database = await createTestDatabase()
const client = createPostgresClient({
  connectionString: database.connectionString,
  maxConnections: 2,
  statementTimeoutMs: 600_000,
})
try {
  await migrate(client)
  const filled = performance.now()
  // In batches of 10^5 rows.
  for (let from = 1; from <= rows; from += 100_000) {
    await client.pool.query(
      `insert into portcullis_sessions (digest, handle, account_id, security_epoch, created_at, last_seen_at,
       idle_expires_at, absolute_expires_at)
     select md5('d' || i), case when i % 3 = 0
              then left(translate(encode(sha256(('sub' || (i / 3))::bytea), 'base64'), '+/=', '-_'), 11)
                || left(translate(encode(sha256(('sid' || i)::bytea), 'base64'), '+/=', '-_'), 11)
                || left(md5('h' || i), 22)
              else left(md5('h' || i), 22) end,
            'account-' || (i % 100000), 0, now(), now(), now() + interval '1 day', now() + interval '2 days'
       from generate_series($1::int, $2::int) as i`,
      [from, Math.min(rows, from + 99_999)],
    )
  }
  await client.pool.query('analyze portcullis_sessions')
  console.log(`filled ${rows} sessions in ${((performance.now() - filled) / 1000).toFixed(1)} s`)
  // How long the handle-tags migration's own SQL takes on this table (it blocks writes meanwhile).
  const migration = MIGRATIONS.find((each) => each.name === 'session-handle-tags')
  if (migration !== undefined && process.argv.includes('--rebuild')) {
    await client.pool.query(
      'drop index portcullis_sessions_handle_tag_1_idx, portcullis_sessions_handle_tag_2_idx',
    )
    const building = performance.now()
    await client.pool.query(migration.sql)
    console.log(`the migration built its indexes in ${((performance.now() - building) / 1000).toFixed(1)} s`)
  }
  const store = new PostgresSessionStore({ client })
  // The DELETE the store sent before migration 9 (a substring test, so a scan) and the one it sends now
  // (each tag in either tag slot), bare; and the store's whole `revoke` (a transaction with its notices).
  const bare = (test: (n: number) => string) => (tags: readonly string[]) =>
    client.pool.query(
      `delete from portcullis_sessions where ${tags.map((_, i) => test(i + 1)).join(' and ')} returning digest`,
      [...tags],
    )
  const ways = {
    'before: strpos DELETE': bare((n) => `strpos(handle, $${n}) > 0`),
    'after: slot DELETE': bare((n) => `(left(handle, 11) = $${n} or substr(handle, 12, 11) = $${n})`),
    'after: store.revoke': async (handleTags: readonly string[]) => ({
      rowCount: await store.revoke({ handleTags }),
    }),
  }
  const timings: Record<string, number[]> = {}
  const third = Math.floor(rows / 3)
  let next = 0
  const session = () => {
    // Session i = 3k carries tags sub(k) and sid(3k); every logout names a different one.
    const k = 1 + ((next++ * 7919) % (third - 1))
    return { sub: tag(`sub${k}`), sid: tag(`sid${3 * k}`) }
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of ['sub+sid', 'sid', 'sub'] as const) {
      for (const [how, revoke] of Object.entries(ways)) {
        const { sub, sid } = session()
        const handleTags = kind === 'sub+sid' ? [sub, sid] : kind === 'sid' ? [sid] : [sub]
        const started = performance.now()
        const removed = (await revoke(handleTags)).rowCount
        const key = `${how}, by ${kind}`
        timings[key] = [...(timings[key] ?? []), performance.now() - started]
        if (removed !== 1) throw new Error(`${key}: removed ${removed}, expected 1`)
      }
    }
  }
  for (const [key, values] of Object.entries(timings)) {
    const sorted = [...values].sort((a, b) => a - b)
    const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
    console.log(
      `${rows} sessions, ${key}: median ${median.toFixed(1)} ms (min ${sorted[0]?.toFixed(1)}, max ${sorted.at(-1)?.toFixed(1)}, ${sorted.length} logouts)`,
    )
  }
} finally {
  await client.close()
  await database.close()
}
