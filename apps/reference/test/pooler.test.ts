import { type PgBouncer, pgbouncerMissing, startPgBouncer } from '@portcullis/database-tooling/pgbouncer'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type RunningReferenceApp, startReferenceApp } from '../src/server.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * Two reference-app instances on one database behind a real PgBouncer in transaction mode: the stores'
 * pools go through it (`DATABASE_URL`, `PORTCULLIS_DATABASE_POOLER=transaction`), each listener to the
 * server itself (`DATABASE_LISTENER_URL`). Without the `pgbouncer` program these tests skip, saying why.
 */
const missing = pgbouncerMissing()
if (missing !== undefined) console.warn(missing)

let bouncer: PgBouncer
let a: TestApp
let b: RunningReferenceApp
const warnings: string[] = []

const whoami = (app: { url: string }, key: string) =>
  fetch(`${app.url}/api/whoami`, { headers: { 'x-api-key': key } })

/**
 * Milliseconds from now until the first probe that answers true was SENT (probes back to back), or
 * infinity after 2 s: a probe sent after that moment was refused, however long its answer then took
 * on a loaded machine.
 */
async function refusedWithin(refused: () => Promise<boolean>): Promise<number> {
  const started = performance.now()
  while (performance.now() - started < 2_000) {
    const sentAt = performance.now()
    if (await refused()) return sentAt - started
    // A cache hit settles without I/O: yield, or the notice could never be read.
    await new Promise((resolve) => setImmediate(resolve))
  }
  return Number.POSITIVE_INFINITY
}

describe.skipIf(missing !== undefined)(
  'two reference app instances behind PgBouncer in transaction mode',
  () => {
    beforeAll(async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation((message: unknown) => {
        warnings.push(String(message))
      })
      try {
        a = await startTestApp(
          (directUrl) => ({
            databasePooler: 'transaction',
            databaseListenerUrl: directUrl,
            databaseApplicationName: 'portcullis-a',
          }),
          async (connectionString) => {
            bouncer = await startPgBouncer({ upstream: connectionString })
            return bouncer.through(connectionString)
          },
        )
        // The second instance: same database, same secrets, its own name.
        b = await startReferenceApp({ ...a.config, databaseApplicationName: 'portcullis-b' })
      } finally {
        warn.mockRestore()
      }
    }, 120_000)

    afterAll(async () => {
      await b?.close()
      await a?.close()
      await bouncer?.stop()
    })

    it('a fresh API key works on both at once, and a revocation reaches the other within 100 ms', async () => {
      // Both serve verified keys from their caches (their listeners are trusted): a key row deleted
      // behind their backs, without a notice, still answers 200 on both.
      const cached = await a.apiKeys.issue({ ownerId: 'demo-alice', ownerKind: 'user', label: 'cached' })
      for (const app of [a, b]) expect((await whoami(app, cached.value)).status).toBe(200)
      await a.postgres.pool.query('delete from portcullis_api_keys where key_id = $1', [cached.keyId])
      for (const app of [a, b]) expect((await whoami(app, cached.value)).status).toBe(200)
      const elapsed: number[] = []
      for (let round = 0; round < 5; round += 1) {
        const key = await a.apiKeys.issue({
          ownerId: 'demo-alice',
          ownerKind: 'user',
          label: `pooled ${round}`,
        })
        expect((await whoami(b, key.value)).status).toBe(200)
        expect((await whoami(a, key.value)).status).toBe(200)
        expect((await whoami(b, key.value)).status).toBe(200)
        await a.apiKeys.revoke(key.keyId)
        // Revoked through a third pool (the test's): both instances learn it from their listeners.
        elapsed.push(await refusedWithin(async () => (await whoami(b, key.value)).status === 401))
        elapsed.push(await refusedWithin(async () => (await whoami(a, key.value)).status === 401))
      }
      console.info(
        `reference app, revocation across instances behind PgBouncer: ${elapsed.map((ms) => ms.toFixed(1)).join(', ')} ms`,
      )
      expect(Math.max(...elapsed)).toBeLessThan(100)
      expect(warnings).toEqual([])
    })

    it("each instance's listener is on the server, told apart by its application name", async () => {
      const { rows } = await a.postgres.pool.query<{ name: string; query: string }>(
        `select application_name as name, query from pg_stat_activity
        where datname = current_database() and application_name like 'portcullis-%-listener'
        order by application_name`,
      )
      expect(rows.map((row) => row.name)).toEqual(['portcullis-a-listener', 'portcullis-b-listener'])
      for (const row of rows) expect(row.query).toMatch(/^LISTEN/)
    })

    it('an instance whose listener URL is the pooler is never trusted, says so once, and refuses a revoked key at once', async () => {
      const said: string[] = []
      const warn = vi.spyOn(console, 'warn').mockImplementation((message: unknown) => {
        said.push(String(message))
      })
      let c: RunningReferenceApp | undefined
      try {
        c = await startReferenceApp({
          ...a.config,
          databaseListenerUrl: a.config.databaseUrl ?? '',
          databaseApplicationName: 'portcullis-c',
        })
        const key = await a.apiKeys.issue({ ownerId: 'demo-alice', ownerKind: 'user', label: 'pooled c' })
        expect((await whoami(c, key.value)).status).toBe(200)
        await a.apiKeys.revoke(key.keyId)
        // Not trusted, so not cached: the very next request reads the store.
        expect((await whoami(c, key.value)).status).toBe(401)
        // Once however long it keeps trying (here over two more leases).
        await new Promise((resolve) => setTimeout(resolve, 7_000))
        const problems = said.filter((line) => line.includes('did not hear its own NOTIFY'))
        expect(problems).toHaveLength(1)
        expect(problems[0]).toMatch(/pooler in transaction mode/)
        expect(problems[0]).not.toContain(a.config.databaseUrl ?? '')
      } finally {
        warn.mockRestore()
        await c?.close()
      }
    }, 30_000)
  },
)
