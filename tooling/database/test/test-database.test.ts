import { createServer } from 'node:net'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { dockerEngineAnswers } from '../src/docker.js'
import { EmbeddedDataDirError, startEmbeddedPostgres } from '../src/embedded.js'
import { createTestDatabase, type TestDatabase } from '../src/test-database.js'

const opened: TestDatabase[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()))
})

async function query<T extends pg.QueryResultRow>(connectionString: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    return (await client.query<T>(sql)).rows
  } finally {
    await client.end()
  }
}

describe('createTestDatabase: embedded PGlite over the wire protocol', () => {
  it('serves a real Postgres that pg connects to and writes into', async () => {
    const db = await createTestDatabase({ source: 'pglite' })
    opened.push(db)
    expect(db.source).toBe('pglite')
    expect(db.concurrent).toBe(false)
    await query(db.connectionString, 'create table t (id int primary key, label text not null)')
    await query(db.connectionString, "insert into t values (1, 'one'), (2, 'two')")
    const rows = await query<{ n: string; v: string }>(
      db.connectionString,
      "select count(*)::text as n, current_setting('server_version') as v from t",
    )
    expect(rows[0]?.n).toBe('2')
    expect(rows[0]?.v).toMatch(/^1[5-9]/)
  })

  it('persists to a data directory across restarts', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const dataDir = await mkdtemp(join(tmpdir(), 'portcullis-pglite-'))
    try {
      const first = await startEmbeddedPostgres({ dataDir })
      await query(first.connectionString, 'create table kept (v int)')
      await query(first.connectionString, 'insert into kept values (42)')
      await first.stop()
      const second = await startEmbeddedPostgres({ dataDir })
      const rows = await query<{ v: number }>(second.connectionString, 'select v from kept')
      await second.stop()
      expect(rows).toEqual([{ v: 42 }])
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})

describe('startEmbeddedPostgres: the data directory', () => {
  it('creates a missing data directory with all its parents, and keeps data there', async () => {
    const { mkdtemp, rm, stat } = await import('node:fs/promises')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const root = await mkdtemp(join(tmpdir(), 'portcullis-pglite-'))
    const dataDir = join(root, 'not', 'yet', 'there', 'pglite')
    try {
      const first = await startEmbeddedPostgres({ dataDir })
      await query(first.connectionString, 'create table kept (v int)')
      await first.stop()
      expect((await stat(dataDir)).isDirectory()).toBe(true)
      const second = await startEmbeddedPostgres({ dataDir })
      const rows = await query<{ n: number }>(second.connectionString, 'select count(*)::int as n from kept')
      await second.stop()
      expect(rows).toEqual([{ n: 0 }])
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })

  it('refuses a path that exists and is not a directory, naming it, and leaves the file alone', async () => {
    const { mkdtemp, readFile, rm, writeFile } = await import('node:fs/promises')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const root = await mkdtemp(join(tmpdir(), 'portcullis-pglite-'))
    const file = join(root, 'pglite')
    try {
      await writeFile(file, 'not a database')
      const attempt = startEmbeddedPostgres({ dataDir: file })
      await expect(attempt).rejects.toBeInstanceOf(EmbeddedDataDirError)
      await expect(attempt).rejects.toThrow(`${file} exists and is not a directory`)
      expect(await readFile(file, 'utf8')).toBe('not a database')
      await expect(startEmbeddedPostgres({ dataDir: join(file, 'below') })).rejects.toThrow(
        /cannot be (read|created) \(ENOTDIR\)/,
      )
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})

describe.runIf(process.env.DATABASE_URL)('createTestDatabase: DATABASE_URL', () => {
  it('creates an isolated database per run and drops it on close', async () => {
    const a = await createTestDatabase()
    const b = await createTestDatabase()
    opened.push(b)
    expect(a.source).toBe('database-url')
    expect(a.concurrent).toBe(true)
    expect(a.connectionString).not.toBe(b.connectionString)
    await query(a.connectionString, 'create table only_in_a (v int)')
    const inB = await query<{ n: string }>(
      b.connectionString,
      "select count(*)::text as n from information_schema.tables where table_name = 'only_in_a'",
    )
    expect(inB[0]?.n).toBe('0')
    const name = new URL(a.connectionString).pathname.slice(1)
    await a.close()
    await a.close()
    const left = await query<{ n: string }>(
      process.env.DATABASE_URL ?? '',
      `select count(*)::text as n from pg_database where datname = '${name}'`,
    )
    expect(left[0]?.n).toBe('0')
  })
})

describe('dockerEngineAnswers', () => {
  it('is false when nothing answers on the Docker socket', async () => {
    const previous = process.env.DOCKER_HOST
    process.env.DOCKER_HOST = 'unix:///nonexistent/portcullis-docker.sock'
    try {
      expect(await dockerEngineAnswers(200)).toBe(false)
    } finally {
      if (previous === undefined) delete process.env.DOCKER_HOST
      else process.env.DOCKER_HOST = previous
    }
  })

  it('is false when the socket accepts but does not speak the engine API', async () => {
    const { mkdtemp } = await import('node:fs/promises')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const socketPath = join(await mkdtemp(join(tmpdir(), 'pc-docker-')), 'docker.sock')
    const server = createServer((socket) => socket.end('HTTP/1.1 500 Nope\r\nContent-Length: 0\r\n\r\n'))
    await new Promise<void>((resolve) => server.listen(socketPath, resolve))
    const previous = process.env.DOCKER_HOST
    process.env.DOCKER_HOST = `unix://${socketPath}`
    try {
      expect(await dockerEngineAnswers(500)).toBe(false)
    } finally {
      if (previous === undefined) delete process.env.DOCKER_HOST
      else process.env.DOCKER_HOST = previous
      server.close()
    }
  })
})
