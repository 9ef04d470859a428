import { spawn } from 'node:child_process'
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ApiKeyService } from '@portcullis/core/api-keys'
import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import { createPostgresClient, PostgresApiKeyStore } from '@portcullis/postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildKeyMaterial } from '../src/secrets/key-material.js'
import { loadSecrets } from '../src/secrets/secret-source.js'
import { loadOrCreateSecretsFile, readSecretsFile } from '../src/secrets/secrets-file.js'
import { startReferenceApp } from '../src/server.js'
import { testConfig } from './support/reference-app.js'

const repositoryRoot = fileURLToPath(new URL('../../..', import.meta.url))
let directory: string
let database: TestDatabase
let apiKey: string

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'portcullis-secrets-'))
  database = await createTestDatabase()
})
afterAll(async () => {
  await database?.close()
  await rm(directory, { recursive: true, force: true })
})

const mode = async (path: string) => (await stat(path)).mode & 0o777

/** Issues a key with the pepper of the secrets file, straight into the app's database. */
async function issueKey(secretsFile: string): Promise<string> {
  const keys = await buildKeyMaterial(await readSecretsFile(secretsFile))
  const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 1 })
  try {
    const service = new ApiKeyService({
      store: new PostgresApiKeyStore({ client }),
      peppers: keys.peppers,
      prefix: 'demo',
    })
    return (await service.issue({ ownerId: 'svc-reporting' })).value
  } finally {
    await client.close()
  }
}

const whoami = (url: string) => fetch(`${url}/api/whoami`, { headers: { 'x-api-key': apiKey } })

describe('key material on the first start', () => {
  const config = () => testConfig(join(directory, 'app'), database.connectionString)

  it('is generated into a 0600 secrets file, and an API key issued with it works', async () => {
    const running = await startReferenceApp(config())
    try {
      expect(running.secrets).toEqual({ kind: 'file', path: config().secretsFile, created: true })
      expect(await mode(config().secretsFile ?? '')).toBe(0o600)
      const text = await readFile(config().secretsFile ?? '', 'utf8')
      expect(JSON.parse(text)).toMatchObject({ format: 'portcullis-reference-secrets/1' })
      apiKey = await issueKey(config().secretsFile ?? '')
      expect((await whoami(running.url)).status).toBe(200)
    } finally {
      await running.close()
    }
  })

  it('is reused on the second start (same keys), not regenerated', async () => {
    const before = await readFile(config().secretsFile ?? '', 'utf8')
    const running = await startReferenceApp(config())
    try {
      expect(running.secrets).toEqual({ kind: 'file', path: config().secretsFile, created: false })
      expect(await readFile(config().secretsFile ?? '', 'utf8')).toBe(before)
      // The pepper is the same: a key issued before the restart still authenticates.
      expect((await whoami(running.url)).status).toBe(200)
    } finally {
      await running.close()
    }
  })

  it('is refused when the file is readable by others (0644), naming the file and the fix', async () => {
    const path = config().secretsFile ?? ''
    await chmod(path, 0o644)
    try {
      await expect(startReferenceApp(config())).rejects.toThrow(
        `secrets file ${path} has permissions 0644, wider than 0600; run chmod 600 ${path}`,
      )
    } finally {
      await chmod(path, 0o600)
    }
  })

  it('pnpm start says so in one line on stderr and exits 1', async () => {
    const path = config().secretsFile ?? ''
    await chmod(path, 0o640)
    try {
      const { DATABASE_URL: _unused, ...env } = process.env
      const child = spawn('pnpm', ['--silent', 'start'], {
        cwd: repositoryRoot,
        env: {
          ...env,
          PORT: '0',
          DATABASE_URL: database.connectionString,
          PORTCULLIS_DATA_DIR: config().dataDir,
          PORTCULLIS_SECRETS_FILE: path,
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      })
      let stderr = ''
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      const code = await new Promise((resolve) => child.on('exit', resolve))
      expect(code).toBe(1)
      expect(stderr.trim().split('\n')).toEqual([
        `portcullis reference app could not start: secrets file ${path} has permissions 0640, wider than 0600; run chmod 600 ${path}`,
      ])
    } finally {
      await chmod(path, 0o600)
    }
  }, 120_000)
})

describe('the secrets file', () => {
  it('refuses a malformed file in one line, without echoing its content', async () => {
    const path = join(directory, 'malformed.json')
    await writeFile(path, '{"format":"portcullis-reference-secrets/1","protector":"hunter2"}', {
      mode: 0o600,
    })
    const failure = loadOrCreateSecretsFile(path)
    await expect(failure).rejects.toThrow(
      /^secrets file .* is malformed: secrets has an unknown member|is malformed/,
    )
    await expect(failure).rejects.not.toThrow(/hunter2/)
    await expect(failure).rejects.toThrow(/^[^\n]+$/)
  })

  it('refuses a secret of the wrong length', async () => {
    const created = await loadOrCreateSecretsFile(join(directory, 'lengths', 'secrets.json'))
    const broken = {
      ...created.secrets,
      protector: { active: { version: 'k1', value: 'c2hvcnQ' }, retained: [] },
    }
    const path = join(directory, 'lengths', 'short.json')
    await writeFile(path, JSON.stringify(broken), { mode: 0o600 })
    await expect(loadOrCreateSecretsFile(path)).rejects.toThrow(/protector\.active\.value must be 32 bytes/)
  })

  it('two concurrent first starts create one file and agree on it', async () => {
    const path = join(directory, 'race', 'secrets.json')
    const [left, right] = await Promise.all([loadOrCreateSecretsFile(path), loadOrCreateSecretsFile(path)])
    expect([left.created, right.created].sort()).toEqual([false, true])
    expect(left.secrets).toEqual(right.secrets)
  })

  it('comes from PORTCULLIS_SECRETS (a secret store) without touching the disk', async () => {
    const source = await loadOrCreateSecretsFile(join(directory, 'store', 'secrets.json'))
    const path = join(directory, 'never-written.json')
    const loaded = await loadSecrets(path, { PORTCULLIS_SECRETS: JSON.stringify(source.secrets) })
    expect(loaded.origin).toEqual({ kind: 'environment', variable: 'PORTCULLIS_SECRETS' })
    expect(loaded.secrets).toEqual(source.secrets)
    await expect(stat(path)).rejects.toThrow(/ENOENT/)
    await expect(loadSecrets(path, { PORTCULLIS_SECRETS: '{' })).rejects.toThrow(
      'PORTCULLIS_SECRETS is malformed: it is not valid JSON',
    )
  })
})
