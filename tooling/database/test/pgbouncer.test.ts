import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { pgbouncerMissing, startPgBouncer, sweepAbandonedPgBouncers } from '../src/pgbouncer.js'
import { createTestDatabase } from '../src/test-database.js'
import { query } from './support/query.js'

const missing = pgbouncerMissing()
if (missing !== undefined) console.warn(missing)

describe.skipIf(missing !== undefined)('startPgBouncer', () => {
  const opened: { close(): Promise<void> }[] = []
  afterAll(async () => {
    for (const each of opened.splice(0)) await each.close()
  })

  it('pools the test server in transaction mode on a loopback port, and leaves nothing behind', async () => {
    const database = await createTestDatabase()
    opened.push(database)
    const bouncer = await startPgBouncer({ upstream: database.connectionString })
    expect(existsSync(bouncer.directory)).toBe(true)
    try {
      const pooled = bouncer.through(database.connectionString)
      expect(new URL(pooled).port).toBe(String(bouncer.port))
      expect(new URL(pooled).pathname).toBe(new URL(database.connectionString).pathname)
      const [row] = await query<{ db: string }>(pooled, 'select current_database() as db')
      expect(`/${row?.db}`).toBe(new URL(database.connectionString).pathname)
      // Transaction mode: one client's statements run on whichever server connection is free, so a
      // session setting made outside a transaction is not its own. Two clients in turn share one backend.
      const first = new pg.Client({ connectionString: pooled })
      const second = new pg.Client({ connectionString: pooled })
      await first.connect()
      await second.connect()
      try {
        await first.query("set application_name = 'set-by-first'")
        const seen = await second.query<{ name: string }>(
          "select current_setting('application_name') as name",
        )
        expect(seen.rows[0]?.name).toBe('set-by-first')
      } finally {
        await first.end()
        await second.end()
      }
      expect(() => bouncer.through('postgres://postgres@198.51.100.7:5432/x')).toThrow(/upstream/)
    } finally {
      await bouncer.stop()
    }
    await expect(query(bouncer.through(database.connectionString), 'select 1')).rejects.toThrow()
    // Neither its process nor its folder (configuration, user list) is left.
    expect(bouncer.pid).toBeGreaterThan(0)
    expect(() => process.kill(bouncer.pid, 0)).toThrow()
    expect(bouncer.directory).toMatch(/portcullis-pgbouncer-/)
    expect(existsSync(bouncer.directory)).toBe(false)
  })

  it.skipIf(process.getuid?.() !== 0)(
    'as root without user namespaces, runs as the postgres user',
    async () => {
      const database = await createTestDatabase()
      opened.push(database)
      const bouncer = await startPgBouncer({ upstream: database.connectionString, userNamespaces: false })
      try {
        const [row] = await query<{ one: number }>(
          bouncer.through(database.connectionString),
          'select 1 as one',
        )
        expect(row?.one).toBe(1)
        const owner = spawnSync('ps', ['-o', 'user=', '-p', String(bouncer.pid)], { encoding: 'utf8' })
        expect(owner.stdout.trim()).toBe('postgres')
      } finally {
        await bouncer.stop()
      }
      expect(existsSync(bouncer.directory)).toBe(false)
    },
  )

  it('a PgBouncer whose owner died without stopping it is ended and its folder removed at the next start', async () => {
    const database = await createTestDatabase()
    opened.push(database)
    const orphan = await startPgBouncer({ upstream: database.connectionString })
    // Its owner is now a process that has exited (as a test run killed mid-way).
    const gone = spawnSync('true')
    await writeFile(join(orphan.directory, 'owner.pid'), String(gone.pid))
    expect(await sweepAbandonedPgBouncers()).toBeGreaterThanOrEqual(1)
    expect(existsSync(orphan.directory)).toBe(false)
    const deadline = Date.now() + 5_000
    while (alive(orphan.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(alive(orphan.pid)).toBe(false)
    await orphan.stop()
  })
})

/** Whether a process runs (a zombie left for its parent to reap counts as ended). */
function alive(pid: number): boolean {
  const state = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim()
  return state !== '' && !state.startsWith('Z')
}
