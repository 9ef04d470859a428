import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../src/cli/run.js'
import { createPostgresClient, MIGRATIONS, type PostgresClient } from '../src/index.js'

let database: TestDatabase
let client: PostgresClient
beforeAll(async () => {
  database = await createTestDatabase()
  client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 1 })
})
afterAll(async () => {
  await client?.close()
  await database?.close()
})

async function cli(argv: string[], env: NodeJS.ProcessEnv = { DATABASE_URL: database.connectionString }) {
  const out: string[] = []
  const err: string[] = []
  const code = await runCli(argv, env, { out: (line) => out.push(line), err: (line) => err.push(line) })
  return { code, out, err }
}

const versions = MIGRATIONS.map((migration) => migration.version)

describe('portcullis-postgres', () => {
  it('status on an empty database lists every migration as pending, exit code 3', async () => {
    const { code, out } = await cli(['status'])
    expect(code).toBe(3)
    expect(out.filter((line) => line.startsWith('pending'))).toHaveLength(versions.length)
    expect(out.at(-1)).toBe(`0 applied, ${versions.length} pending`)
  })

  it('migrate applies them, a second migrate has nothing to do, and status then exits 0', async () => {
    const first = await cli(['migrate'])
    expect(first).toEqual({
      code: 0,
      out: [`applied ${versions.join(', ')}; schema at version ${versions.at(-1)}`],
      err: [],
    })
    expect((await cli(['migrate'])).out).toEqual([`schema current at version ${versions.at(-1)}`])
    const status = await cli(['status'])
    expect(status.code).toBe(0)
    expect(status.out.filter((line) => line.startsWith('applied '))).toHaveLength(versions.length)
    expect(status.out.at(-1)).toBe(
      `${versions.length} applied, 0 pending; schema at version ${versions.at(-1)}`,
    )
  })

  it('status flags a migration whose recorded checksum no longer matches', async () => {
    await client.pool.query(
      "update portcullis_schema_migrations set checksum = 'edited' where version = $1",
      [versions[0]],
    )
    try {
      const status = await cli(['status'])
      expect(status.out.filter((line) => line.includes('CHANGED since applied'))).toHaveLength(1)
      const migrate = await cli(['migrate'])
      expect(migrate.code).toBe(1)
      expect(migrate.err.join('\n')).toContain('postgres.migration_modified')
    } finally {
      await client.pool.query('update portcullis_schema_migrations set checksum = $2 where version = $1', [
        versions[0],
        (await import('../src/migrations/migrate.js')).checksumOf(MIGRATIONS[0] as never),
      ])
    }
  })

  it('sweep deletes expired rows in bounded batches and leaves live ones', async () => {
    const insert = `insert into portcullis_step_up_credentials
      (digest, account_id, purpose, security_epoch, session_digest, issued_at, authenticated_at, expires_at)
      values ($1, 'acct', 'purpose', 1, 'session', $2, $2, $3)`
    const past = new Date(Date.now() - 3_600_000)
    for (let index = 0; index < 5; index += 1) {
      await client.pool.query(insert, [`expired-${index}`, new Date(past.getTime() - 60_000), past])
    }
    await client.pool.query(insert, ['live', new Date(), new Date(Date.now() + 3_600_000)])
    const swept = await cli(['sweep', '--batch-size', '2'])
    expect(swept.code).toBe(0)
    expect(swept.out).toContain('portcullis_step_up_credentials: 5 deleted')
    const left = await client.pool.query<{ digest: string }>(
      'select digest from portcullis_step_up_credentials',
    )
    expect(left.rows).toEqual([{ digest: 'live' }])
  })

  it('refuses unknown commands, stray arguments and a missing DATABASE_URL with exit code 2', async () => {
    expect((await cli([])).code).toBe(2)
    expect((await cli(['drop'])).err[0]).toBe('unknown command drop')
    expect((await cli(['status', 'extra'])).code).toBe(2)
    expect((await cli(['sweep', '--batch-size'])).err[0]).toBe('--batch-size needs a value')
    const missing = await cli(['status'], {})
    expect(missing.code).toBe(2)
    expect(missing.err[0]).toMatch(/^DATABASE_URL is not set/)
    expect((await cli(['--help'])).code).toBe(0)
  })

  it('a database that does not answer is exit code 1 with one line that never shows the URL', async () => {
    const result = await cli(['status'], { DATABASE_URL: 'postgres://app:s3cret@127.0.0.1:1/none' })
    expect(result.code).toBe(1)
    expect(result.err).toEqual([
      'portcullis-postgres status: postgres.unavailable: the database is unavailable',
    ])
  })

  it('runs as a command: the bin entry prints the status', () => {
    const packageRoot = fileURLToPath(new URL('..', import.meta.url))
    const run = spawnSync(
      join(packageRoot, 'node_modules', '.bin', 'tsx'),
      ['--conditions=@portcullis/source', 'src/cli/main.ts', 'status'],
      {
        cwd: packageRoot,
        env: { ...process.env, DATABASE_URL: database.connectionString },
        encoding: 'utf8',
      },
    )
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    expect(run.stdout).toContain(
      `${versions.length} applied, 0 pending; schema at version ${versions.at(-1)}`,
    )
  })

  it('the published bin runs the command compiled from the sources by tsc', async () => {
    // The package's build (tsconfig.build.json) emitted into a folder of this test, beside the published
    // bin: the bin loads ../dist/cli/main.js as in the package. Its workspace dependencies resolve to their
    // sources; the pack test runs the bin of the installed tarball, with everything built.
    const packageRoot = fileURLToPath(new URL('..', import.meta.url))
    const cache = join(packageRoot, 'node_modules', '.cache')
    await mkdir(cache, { recursive: true })
    const root = await mkdtemp(join(cache, 'portcullis-cli-build-'))
    try {
      const tsc = spawnSync(
        process.execPath,
        [
          createRequire(import.meta.url).resolve('typescript/bin/tsc'),
          '-p',
          'tsconfig.build.json',
          '--outDir',
          join(root, 'dist'),
          '--noCheck',
          '--declaration',
          'false',
        ],
        { cwd: packageRoot, encoding: 'utf8' },
      )
      expect(tsc.status, `${tsc.stdout}${tsc.stderr}`).toBe(0)
      expect(existsSync(join(root, 'dist', 'cli', 'main.js'))).toBe(true)
      await mkdir(join(root, 'bin'))
      await copyFile(
        join(packageRoot, 'bin', 'portcullis-postgres.js'),
        join(root, 'bin', 'portcullis-postgres.js'),
      )
      await writeFile(join(root, 'package.json'), '{"type":"module"}')
      const run = spawnSync(
        join(packageRoot, 'node_modules', '.bin', 'tsx'),
        ['--conditions=@portcullis/source', 'bin/portcullis-postgres.js', 'status'],
        { cwd: root, env: { ...process.env, DATABASE_URL: database.connectionString }, encoding: 'utf8' },
      )
      expect(run.status, run.stderr).toBe(0)
      expect(run.stdout).toContain(
        `${versions.length} applied, 0 pending; schema at version ${versions.at(-1)}`,
      )
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  }, 180_000)

  it('the published bin says in one line that the package is not built when dist/ is missing', async () => {
    const root = await mkdtemp(join(tmpdir(), 'portcullis-unbuilt-'))
    try {
      await mkdir(join(root, 'bin'))
      await copyFile(
        fileURLToPath(new URL('../bin/portcullis-postgres.js', import.meta.url)),
        join(root, 'bin', 'portcullis-postgres.js'),
      )
      await writeFile(join(root, 'package.json'), '{"type":"module"}')
      const run = spawnSync(process.execPath, ['bin/portcullis-postgres.js', 'status'], {
        cwd: root,
        encoding: 'utf8',
      })
      expect(run.status).toBe(2)
      expect(run.stderr.trim()).toBe(
        'portcullis-postgres: not built yet; run pnpm --filter @portcullis/postgres build',
      )
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})
