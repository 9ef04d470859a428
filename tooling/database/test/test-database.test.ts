import { createServer } from 'node:net'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { dockerEngineAnswers } from '../src/docker.js'
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../src/embedded.js'
import { createTestDatabase, type TestDatabase } from '../src/test-database.js'
import { query } from './support/query.js'

const opened: TestDatabase[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()))
})

describe('createTestDatabase without DATABASE_URL or Docker: embedded real PostgreSQL', () => {
  it('gives each caller its own database on a real PostgreSQL 18 server', async () => {
    const a = await createTestDatabase({ source: 'embedded' })
    const b = await createTestDatabase({ source: 'embedded' })
    opened.push(a, b)
    expect(a.source).toBe('embedded')
    expect(a.connectionString).not.toBe(b.connectionString)
    await query(a.connectionString, 'create table only_in_a (v int)')
    const rows = await query<{ v: string; n: string }>(
      b.connectionString,
      "select current_setting('server_version') as v, (select count(*)::text from information_schema.tables where table_name = 'only_in_a') as n",
    )
    expect(rows[0]?.v).toMatch(/^18\./)
    expect(rows[0]?.n).toBe('0')
  })

  it('is a server with real backends: a second session sees the first and can terminate it', async () => {
    const db = await createTestDatabase({ source: 'embedded' })
    opened.push(db)
    const victim = new pg.Client({ connectionString: db.connectionString })
    await victim.connect()
    const ended = new Promise<Error>((resolve) => victim.on('error', resolve))
    const pid = (await victim.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid
    const killed = await query<{ ok: boolean }>(
      db.connectionString,
      `select pg_terminate_backend(${pid}) as ok`,
    )
    expect(killed).toEqual([{ ok: true }])
    expect((await ended).message).toMatch(/terminat/)
    await victim.end().catch(() => undefined)
  })

  it('holds row locks across sessions (the second writer waits for the first to commit)', async () => {
    const db = await createTestDatabase({ source: 'embedded' })
    opened.push(db)
    await query(
      db.connectionString,
      'create table counter (id int primary key, n int not null); insert into counter values (1, 0)',
    )
    const first = new pg.Client({ connectionString: db.connectionString })
    const second = new pg.Client({ connectionString: db.connectionString })
    await Promise.all([first.connect(), second.connect()])
    try {
      await first.query('begin; update counter set n = n + 1 where id = 1')
      let secondDone = false
      const waiting = second.query('update counter set n = n + 1 where id = 1').then(() => {
        secondDone = true
      })
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(secondDone).toBe(false)
      await first.query('commit')
      await waiting
      expect((await second.query('select n from counter')).rows).toEqual([{ n: 2 }])
    } finally {
      await Promise.all([first.end(), second.end()])
    }
  })
})

// Each start runs initdb: seconds when idle, over a minute on a loaded two-core machine.
describe('startEmbeddedPostgres: a temporary server', { timeout: 180_000 }, () => {
  let server: EmbeddedPostgres
  beforeAll(async () => {
    server = await startEmbeddedPostgres()
  }, 180_000)
  afterAll(async () => {
    await server.stop()
  })

  it('listens on loopback only and requires its password', async () => {
    const url = new URL(server.connectionString)
    expect(url.hostname).toBe('127.0.0.1')
    expect(url.password.length).toBeGreaterThanOrEqual(24)
    const settings = await query<{ listen: string; sockets: string }>(
      server.connectionString,
      "select current_setting('listen_addresses') as listen, current_setting('unix_socket_directories') as sockets",
    )
    expect(settings).toEqual([{ listen: '127.0.0.1', sockets: '' }])
    url.password = 'wrong'
    await expect(query(url.toString(), 'select 1')).rejects.toThrow(/password authentication failed/)
    url.password = ''
    await expect(query(url.toString(), 'select 1')).rejects.toThrow()
  })

  it('removes its data directory on stop and stops only once', async () => {
    const { stat } = await import('node:fs/promises')
    const own = await startEmbeddedPostgres()
    expect((await stat(own.dataDir)).isDirectory()).toBe(true)
    await Promise.all([own.stop(), own.stop()])
    await expect(stat(own.dataDir)).rejects.toMatchObject({ code: 'ENOENT' })
    await expect(query(own.connectionString, 'select 1')).rejects.toThrow(/ECONNREFUSED/)
  })
})

describe('createTestDatabase: the DATABASE_URL path', () => {
  let server: EmbeddedPostgres
  beforeAll(async () => {
    server = await startEmbeddedPostgres()
  })
  afterAll(async () => {
    await server.stop()
  })

  it('creates an isolated database per call on that server and drops it on close', async () => {
    const a = await createTestDatabase({ databaseUrl: server.connectionString })
    const b = await createTestDatabase({ databaseUrl: server.connectionString })
    opened.push(b)
    expect(a.source).toBe('database-url')
    expect(new URL(a.connectionString).port).toBe(new URL(server.connectionString).port)
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
      server.connectionString,
      `select count(*)::text as n from pg_database where datname = '${name}'`,
    )
    expect(left[0]?.n).toBe('0')
  })

  it('is preferred over the embedded server whenever a URL is given', async () => {
    const previous = process.env.DATABASE_URL
    process.env.DATABASE_URL = server.connectionString
    try {
      const db = await createTestDatabase()
      opened.push(db)
      expect(db.source).toBe('database-url')
    } finally {
      if (previous === undefined) delete process.env.DATABASE_URL
      else process.env.DATABASE_URL = previous
    }
  })

  it('refuses the database-url source without a URL', async () => {
    const previous = process.env.DATABASE_URL
    delete process.env.DATABASE_URL
    try {
      await expect(createTestDatabase({ source: 'database-url' })).rejects.toThrow(/needs DATABASE_URL/)
    } finally {
      if (previous !== undefined) process.env.DATABASE_URL = previous
    }
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
