import { spawn } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { postgresBinaries } from '../src/embedded/binaries.js'
import { alive, postmasterPid } from '../src/embedded/lifecycle.js'
import { initialiseCluster, newPassword, startServer } from '../src/embedded/server.js'
import { EmbeddedDataDirError, startEmbeddedPostgres } from '../src/embedded.js'
import { query } from './support/query.js'

const roots: string[] = []
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })))
})

async function root(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-durable-'))
  await chmod(dir, 0o711)
  roots.push(dir)
  return dir
}

// Every test starts a real server (most run initdb): a loaded two-core machine needs well over a minute.
describe('startEmbeddedPostgres with a data directory', { timeout: 180_000 }, () => {
  it('creates the cluster with its parents on the first start, reports initdb time, and keeps data', async () => {
    const dataDir = join(await root(), 'not', 'yet', 'postgres')
    const first = await startEmbeddedPostgres({ dataDir })
    expect(first.initialisedInMs).toBeGreaterThan(0)
    await query(first.connectionString, 'create table kept (v int); insert into kept values (42)')
    await first.stop()
    const second = await startEmbeddedPostgres({ dataDir })
    expect(second.initialisedInMs).toBeUndefined()
    expect(second.recovered).toBeUndefined()
    expect(await query(second.connectionString, 'select v from kept')).toEqual([{ v: 42 }])
    await second.stop()
  })

  it('keeps its password in the data directory, readable by the owner only', async () => {
    const dataDir = join(await root(), 'postgres')
    const server = await startEmbeddedPostgres({ dataDir })
    await server.stop()
    const file = join(dataDir, 'portcullis.password')
    expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600')
    expect(await readFile(file, 'utf8')).toBe(decodeURIComponent(new URL(server.connectionString).password))
  })

  it('recovers a stale postmaster.pid left by a crash', async () => {
    const dataDir = join(await root(), 'postgres')
    const first = await startEmbeddedPostgres({ dataDir })
    await query(first.connectionString, 'create table kept (v int); insert into kept values (7)')
    await first.stop()
    // A pid file naming a process that is not PostgreSQL (this very test process, say).
    await writeFile(join(dataDir, 'postmaster.pid'), `${process.pid}\n${dataDir}\n`)
    const second = await startEmbeddedPostgres({ dataDir })
    expect(second.recovered).toBe('stale-pid-file')
    expect(await query(second.connectionString, 'select v from kept')).toEqual([{ v: 7 }])
    await second.stop()
  })

  it('recovers a server left running by a process killed with SIGKILL', async () => {
    const dataDir = join(await root(), 'postgres')
    const script = `
      const { startEmbeddedPostgres } = await import(${JSON.stringify(new URL('../src/embedded.ts', import.meta.url).pathname)})
      const server = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)} })
      const pg = (await import('pg')).default
      const c = new pg.Client({ connectionString: server.connectionString }); await c.connect()
      await c.query('create table kept (v int); insert into kept values (9)'); await c.end()
      console.log('up')
      setInterval(() => {}, 1000)
    `
    const scriptFile = join(import.meta.dirname, `.owner-${process.pid}.mts`)
    await writeFile(scriptFile, script)
    // One process (no wrapper in between), so SIGKILL hits the process that started the server.
    const owner = spawn(process.execPath, ['--import', 'tsx', scriptFile], {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: import.meta.dirname,
    })
    owner.on('exit', () => void rm(scriptFile, { force: true }))
    await new Promise<void>((resolve, reject) => {
      owner.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('up') && resolve())
      owner.on('exit', () => reject(new Error('the owner exited before its server was up')))
    })
    owner.kill('SIGKILL')
    await new Promise((resolve) => owner.on('exit', resolve))
    const orphan = postmasterPid(dataDir)
    expect(orphan !== undefined && alive(orphan)).toBe(true)
    const next = await startEmbeddedPostgres({ dataDir })
    expect(next.recovered).toBe('server-left-running')
    expect(orphan !== undefined && alive(orphan)).toBe(false)
    expect(await query(next.connectionString, 'select v from kept')).toEqual([{ v: 9 }])
    await next.stop()
  })

  it('refuses a path that exists and is not a directory, naming it, and leaves the file alone', async () => {
    const file = join(await root(), 'postgres')
    await writeFile(file, 'not a database')
    const attempt = startEmbeddedPostgres({ dataDir: file })
    await expect(attempt).rejects.toBeInstanceOf(EmbeddedDataDirError)
    await expect(attempt).rejects.toThrow(`${file} exists and is not a directory`)
    expect(await readFile(file, 'utf8')).toBe('not a database')
  })

  it('refuses a folder that holds other files and no cluster, and leaves them alone', async () => {
    const dataDir = join(await root(), 'postgres')
    await mkdir(dataDir)
    await writeFile(join(dataDir, 'notes.txt'), 'mine')
    await expect(startEmbeddedPostgres({ dataDir })).rejects.toThrow(
      /is not empty and holds no PostgreSQL cluster/,
    )
    expect(await readFile(join(dataDir, 'notes.txt'), 'utf8')).toBe('mine')
  })
})

const asRoot = process.getuid?.() === 0

describe.runIf(asRoot)('as root (PostgreSQL refuses to run as root)', { timeout: 180_000 }, () => {
  it('runs in a user namespace and reaches a data folder inside a private (0700) directory', async () => {
    const privateDir = await mkdtemp(join(tmpdir(), 'portcullis-private-'))
    roots.push(privateDir)
    expect((await stat(privateDir)).mode & 0o777).toBe(0o700)
    const server = await startEmbeddedPostgres({ dataDir: join(privateDir, 'postgres') })
    try {
      const pid = postmasterPid(server.dataDir) ?? 0
      const status = await readFile(`/proc/${pid}/status`, 'utf8')
      // Root outside, an ordinary user inside its namespace: the server is not running as root there.
      expect(await readFile(`/proc/${pid}/uid_map`, 'utf8')).toMatch(/^\s*65534\s+0\s+1\s*$/)
      expect(status).toMatch(/^Uid:\s+0\s/m)
      expect(await query(server.connectionString, 'select 1 as one')).toEqual([{ one: 1 }])
    } finally {
      await server.stop()
    }
  })

  it('without user namespaces runs as the postgres user, and says in one sentence when it cannot reach the folder', async () => {
    const binaries = await postgresBinaries({ userNamespaces: false })
    expect(binaries.prefix).toEqual([])
    const uid = binaries.runAs?.uid ?? -1
    expect(uid).toBeGreaterThan(0)
    const dataDir = join(await root(), 'postgres')
    const password = newPassword()
    await initialiseCluster(binaries, dataDir, password, { durable: false })
    expect((await stat(dataDir)).uid).toBe(uid)
    const server = await startServer(binaries, dataDir, {})
    try {
      const status = await readFile(`/proc/${server.pid}/status`, 'utf8')
      expect(status).toMatch(new RegExp(`^Uid:\\s+${uid}\\s`, 'm'))
      const rows = await query<{ one: number }>(
        `postgres://postgres:${password}@127.0.0.1:${server.port}/postgres`,
        'select 1 as one',
      )
      expect(rows).toEqual([{ one: 1 }])
    } finally {
      await server.stop()
    }
    const privateDir = await mkdtemp(join(tmpdir(), 'portcullis-private-'))
    roots.push(privateDir)
    await expect(
      initialiseCluster(binaries, join(privateDir, 'postgres'), newPassword(), { durable: false }),
    ).rejects.toThrow(
      /the "postgres" user that runs the embedded server cannot reach .*private.*set DATABASE_URL/,
    )
  })
})
