import { spawnSync } from 'node:child_process'
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { afterAll, describe, expect, it } from 'vitest'
import { DRIZZLE_FOLDER } from '../scripts/drizzle-module.js'
import { createPostgresClient, migrate, type PostgresClient } from '../src/index.js'
import { readCatalog } from './support/catalog.js'

/**
 * The drizzle table definitions are the one description of the schema: migrations after the
 * hand-written ones are generated from them by drizzle-kit, and these tests fail CI when the two drift.
 */
const packageRoot = fileURLToPath(new URL('..', import.meta.url))
const drizzleKit = join(packageRoot, 'node_modules', '.bin', 'drizzle-kit')
const scratch: string[] = []
const closers: (() => Promise<void>)[] = []
afterAll(async () => {
  await Promise.all(closers.map((close) => close()))
  await Promise.all(scratch.map((folder) => rm(folder, { recursive: true, force: true })))
})

/**
 * Runs `drizzle-kit generate` into `out` (a folder inside the package: drizzle-kit resolves `out`
 * against the working directory, and an absolute path is mangled into a relative one); the migrations in
 * `out` afterwards, by file name. A run that did not read and write the journal fails the test.
 */
async function generateInto(out: string): Promise<string[]> {
  const run = spawnSync(drizzleKit, ['generate', '--name', 'pending'], {
    cwd: packageRoot,
    env: { ...process.env, PORTCULLIS_DRIZZLE_OUT: `./${relative(packageRoot, out)}` },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  })
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0)
  expect(`${run.stdout}${run.stderr}`).not.toMatch(/ENOENT|Error/)
  const journal = JSON.parse(await readFile(join(out, 'meta', '_journal.json'), 'utf8')) as {
    entries: unknown[]
  }
  expect(journal.entries.length).toBeGreaterThan(0)
  return (await readdir(out)).filter((name) => name.endsWith('.sql')).sort()
}

async function scratchFolder(): Promise<string> {
  const folder = await mkdtemp(join(packageRoot, '.drizzle-scratch-'))
  scratch.push(folder)
  return folder
}

async function freshClient(): Promise<PostgresClient> {
  const database = await createTestDatabase()
  const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 1 })
  closers.push(async () => {
    await client.close()
    await database.close()
  })
  return client
}

describe('one schema source: the drizzle table definitions', () => {
  it('drizzle-kit would generate no new migration from the current definitions (no drift)', async () => {
    const out = await scratchFolder()
    await cp(fileURLToPath(DRIZZLE_FOLDER), out, { recursive: true })
    const committed = (await readdir(out)).filter((name) => name.endsWith('.sql')).sort()
    expect(committed.length).toBeGreaterThan(0)
    const after = await generateInto(out)
    const added = after.filter((name) => !committed.includes(name))
    const pending = await Promise.all(added.map((name) => readFile(join(out, name), 'utf8')))
    expect(
      pending,
      'table definitions changed without a migration: run `pnpm --filter @portcullis/postgres db:generate`',
    ).toEqual([])
  }, 120_000)

  it('the migrations create exactly the tables, constraints and indexes the definitions describe', async () => {
    const out = await scratchFolder()
    const [generated] = await generateInto(out)
    const fromDefinitions = await freshClient()
    await fromDefinitions.pool.query(await readFile(join(out, generated ?? ''), 'utf8'))
    const fromMigrations = await freshClient()
    await migrate(fromMigrations)
    const expected = await readCatalog(fromDefinitions.pool)
    expect(expected.columns.length).toBeGreaterThan(0)
    expect(await readCatalog(fromMigrations.pool)).toEqual(expected)
  }, 120_000)
})
