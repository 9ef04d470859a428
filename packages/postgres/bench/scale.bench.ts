// Flat cost from a thousand users to a million: the stores' per-request operations on the scale fixture
// at 10^3 and at 10^6 accounts (3 x 10^3 and 3 x 10^6 sessions), interleaved in one run, a throughput
// ratio per operation (budget >= 0.8x); the pages two lookups touch at each size; the sweep of expired
// rows at 10^6 with each batch's transaction timed (budget <= 100 ms); the locks the index migrations take
// (budget: none blocks a user table > 1 s); and the query-plan audit of every store statement at 10^6.
// Counts are bounded: CALLS calls per side per round, ROUNDS rounds. Not part of `pnpm test`.
//   SCALE_ACCOUNTS=1000000 (default) pnpm --filter @portcullis/postgres exec tsx bench/scale.bench.ts

import { loadavg } from 'node:os'
import { finish, recordComparison, reportTable } from '@portcullis/bench'
import { fillScaleFixture, scaleIds } from '@portcullis/database-tooling/scale-fixture'
import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import pg from 'pg'
import {
  createPostgresClient,
  migrate,
  PostgresApiKeyStore,
  type PostgresClient,
  PostgresSessionStore,
} from '../src/index.js'
import { migratedDatabase } from '../test/support/database.js'
import { auditPlans, captureStoreStatements } from '../test/support/plan-audit.js'
import { bufferProfile } from './scale/buffers.js'
import { measureMigrationLocks } from './scale/migration-locks.js'
import { scaleOperations } from './scale/operations.js'
import { timeSweep } from './scale/sweeps.js'

const SMALL = 1_000
const LARGE = Number(process.env.SCALE_ACCOUNTS ?? 1_000_000)
const CALLS = 200
const ROUNDS = 9
const SWEEP_BUDGET_MS = 100
const opened: { database: TestDatabase; client: PostgresClient }[] = []

const MIGRATION_BUDGET_MS = 1000

async function fixture(accounts: number) {
  const database = await createTestDatabase()
  const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 4 })
  opened.push({ database, client })
  await migrate(client)
  const report = await fillScaleFixture(database.connectionString, { accounts })
  console.log(
    `fixture of ${accounts} accounts: ${JSON.stringify(report.seconds)} s, ${JSON.stringify(report.rows)}`,
  )
  return { client, report, connectionString: database.connectionString }
}

/** Calls per second of `CALLS` calls, counting only the time each call timed. */
async function rate(run: (k: number) => Promise<number>, from: number): Promise<number> {
  let total = 0
  for (let k = from; k < from + CALLS; k++) total += await run(k)
  return (CALLS * 1000) / total
}

try {
  const small = await fixture(SMALL)
  const large = await fixture(LARGE)
  const smallOps = scaleOperations(small.client, SMALL)
  const largeOps = scaleOperations(large.client, LARGE)
  const rows: string[][] = []
  for (const [index, operation] of smallOps.entries()) {
    const candidate = largeOps[index]
    if (candidate === undefined) throw new Error('operation lists differ')
    await rate(operation.run, 0) // warm-up, both sides
    await rate(candidate.run, 0)
    const ratios: number[] = []
    const baselines: number[] = []
    const candidates: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const from = (round + 1) * CALLS
      const first = round % 2 === 0
      const b = first ? await rate(operation.run, from) : 0
      const c = await rate(candidate.run, from)
      const baseline = first ? b : await rate(operation.run, from)
      baselines.push(baseline)
      candidates.push(c)
      ratios.push(c / baseline)
    }
    const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? 0
    const result = recordComparison({
      id: `scale-${operation.id}`,
      title: `Scale: ${operation.what}, ${LARGE} accounts vs ${SMALL}`,
      baseline: { name: `${SMALL} accounts`, perSecond: median(baselines) },
      candidate: { name: `${LARGE} accounts`, perSecond: median(candidates) },
      ratio: median(ratios),
      rounds: ratios,
      budget: 0.8,
    })
    rows.push([
      operation.what,
      (1000 / result.baseline.perSecond).toFixed(2),
      (1000 / result.candidate.perSecond).toFixed(2),
      `${result.ratio.toFixed(2)}x`,
    ])
  }
  reportTable(
    `Scale: store operations at ${SMALL} and ${LARGE} accounts (ms per call, medians of ${ROUNDS} rounds of ${CALLS})`,
    ['Operation', `ms at ${SMALL}`, `ms at ${LARGE}`, 'Throughput ratio'],
    rows,
  )
  // Why: the pages each lookup touches, for accounts not read yet, at both sizes.
  const profiles: string[][] = []
  for (const [name, accounts, client] of [
    [`${SMALL}`, SMALL, small.client],
    [`${LARGE}`, LARGE, large.client],
  ] as const) {
    const at = (k: number) => 1 + ((k * 104_729 + 7) % accounts)
    const sessions = new PostgresSessionStore({ client })
    const keys = new PostgresApiKeyStore({ client })
    for (const [what, key, call] of [
      [
        'session read (getWithAccountEpoch)',
        (k: number) => scaleIds.session(at(k), 3),
        (digest: string) => sessions.getWithAccountEpoch(digest, new Date()),
      ],
      ['API-key lookup (get)', (k: number) => scaleIds.apiKey(at(k)), (id: string) => keys.get(id)],
    ] as const) {
      const profile = await bufferProfile(client, key, call, 50)
      profiles.push([
        what,
        name,
        profile.hitsPerCall.toFixed(1),
        profile.readsPerCall.toFixed(1),
        profile.plan,
      ])
    }
  }
  reportTable(
    'Scale: pages a lookup touches, per call (50 accounts not read before; EXPLAIN ANALYZE BUFFERS of the statement the store sends)',
    ['Lookup', 'Accounts', 'Buffer hits', 'Buffer reads (misses)', 'Plan'],
    profiles,
  )
  const sweeps = await timeSweep(large.client, 20_000)
  reportTable(
    `Scale: sweepExpired at ${LARGE} accounts, 20 000 expired rows added per table (budget <= ${SWEEP_BUDGET_MS} ms per batch transaction)`,
    ['Table', 'Batches', 'Rows deleted', 'Median batch ms', 'Slowest batch ms', 'Verdict'],
    sweeps.map((sweep) => [
      sweep.table,
      String(sweep.batches),
      String(sweep.rows),
      sweep.medianMs.toFixed(1),
      sweep.maxMs.toFixed(1),
      sweep.maxMs <= SWEEP_BUDGET_MS ? 'met' : '**missed**',
    ]),
  )
  if (sweeps.some((sweep) => sweep.maxMs > SWEEP_BUDGET_MS)) {
    console.error(`a sweep batch took more than ${SWEEP_BUDGET_MS} ms`)
    process.exitCode = 1
  }
  // The query-plan test's audit at this size: every store statement on the large fixture against the small.
  const capturing = await migratedDatabase()
  const captured = await captureStoreStatements(capturing).finally(() => capturing.close())
  const [bigConnection, smallConnection] = [large, small].map(
    (each) => new pg.Client({ connectionString: each.connectionString }),
  ) as [pg.Client, pg.Client]
  await Promise.all([bigConnection.connect(), smallConnection.connect()])
  const audit = await auditPlans(captured, bigConnection, smallConnection, LARGE / SMALL).finally(() =>
    Promise.all([bigConnection.end(), smallConnection.end()]),
  )
  reportTable(
    `Scale: query plans of every store statement at ${LARGE} accounts (the CI test runs at 10^5)`,
    [
      'Statements',
      'Plans with a scan, an unbounded sort or rows growing with the table',
      'Known exceptions of the CI test (10^5) that this size does not need',
    ],
    [[String(captured.size), String(audit.failures.length), audit.unused.join('; ') || '-']],
  )
  for (const failure of audit.failures) console.error(failure)
  if (audit.failures.length > 0) process.exitCode = 1
  const migrations = await measureMigrationLocks(large.connectionString, large.client)
  const blocking = migrations.locks.filter((lock) => lock.blocks !== 'nothing a request does')
  reportTable(
    `Scale: locks of the index migrations applied again at ${LARGE} accounts (budget for migrate(): nothing blocks a user table > ${MIGRATION_BUDGET_MS} ms)`,
    ['Migration', 'Applied by', 'Table', 'Lock', 'Blocks', 'Held ms', 'Verdict'],
    [
      ...migrations.locks.map((lock) => [
        `${lock.version} ${lock.name}`,
        lock.how === 'plain' ? 'its SQL in one transaction (before)' : 'migrate() (concurrent build first)',
        lock.table,
        lock.mode,
        lock.blocks,
        lock.heldMs.toFixed(0),
        lock.blocks === 'nothing a request does' || lock.heldMs <= MIGRATION_BUDGET_MS ? 'met' : '**missed**',
      ]),
      ...migrations.notMeasured.map((migration) => [
        `${migration.version} ${migration.name}`,
        '-',
        '-',
        '-',
        '-',
        '-',
        'not measured (creates tables or moves data)',
      ]),
    ],
  )
  if (blocking.some((lock) => lock.how === 'migrate' && lock.heldMs > MIGRATION_BUDGET_MS)) {
    console.error(`a migration blocked a user table for more than ${MIGRATION_BUDGET_MS} ms`)
    process.exitCode = 1
  }
  const sizes = large.report.rows
  reportTable(
    'Scale: fixture sizes (rows per table) and fill time',
    ['Table', `At ${SMALL} accounts`, `At ${LARGE} accounts`],
    [
      ...Object.keys(sizes).map((table) => [table, String(small.report.rows[table]), String(sizes[table])]),
      [
        'machine load average (1, 5, 15 min) at the end',
        '-',
        loadavg()
          .map((value) => value.toFixed(1))
          .join(', '),
      ],
      [
        'fill seconds (load, index, analyze, total)',
        JSON.stringify(small.report.seconds),
        JSON.stringify(large.report.seconds),
      ],
    ],
  )
  finish()
} finally {
  for (const { client, database } of opened) {
    await client.close()
    await database.close()
  }
}
