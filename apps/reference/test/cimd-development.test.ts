import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DocumentServer,
  TEST_CA,
} from '../../../packages/authorization-server/test/support/document-server.js'
import { readConfig } from '../src/config.js'
import { Jar, step } from './support/cookie-jar.js'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * Trying a Client ID Metadata Document served on this machine, as docs/reference-app.md tells a developer
 * to: an https document on loopback under a self-signed certificate, `PORTCULLIS_DEV_CIMD_LOOPBACK=true`
 * and `PORTCULLIS_DEV_CIMD_CA=<its certificate>`. The app started from those variables takes the client;
 * started without them it refuses the same document, and the variables are refused where they would let
 * anyone make a deployed server fetch from its own machine.
 */
const REDIRECT = 'http://127.0.0.1:33419/callback'
const appRoot = fileURLToPath(new URL('..', import.meta.url))
let folder: string
let caFile: string
const documents = new DocumentServer()

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'portcullis-cimd-dev-'))
  caFile = join(folder, 'cert.pem')
  await writeFile(caFile, TEST_CA)
  await documents.start()
})
afterAll(async () => {
  await documents.stop()
  await rm(folder, { recursive: true, force: true })
})

/** Starts the app with the authorization-server settings `readConfig` reads from `env`. */
const startWith = (env: NodeJS.ProcessEnv) => {
  const { authorizationServer } = readConfig({ PORT: '0', ...env })
  return startTestApp(authorizationServer === undefined ? {} : { authorizationServer })
}

/** The first step of an authorization request of the client whose document is at `clientId`. */
async function authorize(app: TestApp, clientId: string, state: string, jar = new Jar()): Promise<Response> {
  const url = new URL(`${app.url}/oauth/auth`)
  for (const [name, value] of Object.entries({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'resources:read',
    resource: `${app.url}/mcp`,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    state,
  })) {
    url.searchParams.set(name, value)
  }
  return step(jar, url.href, { headers: { accept: 'application/json' } })
}

describe('a metadata document served on loopback', () => {
  it('is taken by the app started with PORTCULLIS_DEV_CIMD_LOOPBACK and PORTCULLIS_DEV_CIMD_CA', async () => {
    const app = await startWith({ PORTCULLIS_DEV_CIMD_LOOPBACK: 'true', PORTCULLIS_DEV_CIMD_CA: caFile })
    try {
      const clientId = documents.client('/local-agent.json', {
        client_name: 'My local agent',
        redirect_uris: [REDIRECT],
      })
      const jar = new Jar()
      const answer = await authorize(app, clientId, 'with-setting', jar)
      expect(answer.status).toBe(303)
      const interaction = new URL(answer.headers.get('location') ?? '', app.url)
      expect(interaction.pathname).toMatch(/^\/oauth\/interaction\/[\w-]+$/)
      expect(documents.hits.get('/local-agent.json')).toBeGreaterThan(0)
      // The interaction goes on to the app's sign-in.
      const toSignIn = await step(jar, interaction.href, { headers: { accept: 'text/html' } })
      expect(new URL(toSignIn.headers.get('location') ?? '', app.url).pathname).toBe('/sign-in')
    } finally {
      await app.close()
    }
  })

  it('is refused by the app started without them, never fetched', async () => {
    const app = await startWith({})
    try {
      const clientId = documents.client('/refused-agent.json', { redirect_uris: [REDIRECT] })
      const answer = await authorize(app, clientId, 'without-setting')
      expect(answer.status).toBe(400)
      expect(answer.headers.get('location')).toBeNull()
      expect(await answer.json()).toMatchObject({
        code: 'invalid_client',
        detail: 'client_id metadata document fetch failed',
      })
      expect(documents.hits.get('/refused-agent.json') ?? 0).toBe(0)
    } finally {
      await app.close()
    }
  })

  it('with the loopback setting but not the certificate: the fetch fails on the certificate', async () => {
    const app = await startWith({ PORTCULLIS_DEV_CIMD_LOOPBACK: 'true' })
    try {
      const clientId = documents.client('/untrusted-agent.json', { redirect_uris: [REDIRECT] })
      const answer = await authorize(app, clientId, 'no-ca')
      expect(answer.status).toBe(400)
      expect(answer.headers.get('location')).toBeNull()
      expect(await answer.json()).toMatchObject({ code: 'invalid_client' })
      // The TLS handshake failed: no request reached the document server.
      expect(documents.hits.get('/untrusted-agent.json') ?? 0).toBe(0)
    } finally {
      await app.close()
    }
  })
})

describe('`pnpm start` with the settings', () => {
  it('says so, and takes the loopback document', async () => {
    const database = await createTestDatabase()
    let running: ChildProcess | undefined
    try {
      // Its own process group, so the whole tree (pnpm, tsx, the app) stops together.
      running = spawn('pnpm', ['start'], {
        cwd: appRoot,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          PORT: '0',
          DATABASE_URL: database.connectionString,
          PORTCULLIS_DATA_DIR: join(folder, 'start', 'postgres'),
          PORTCULLIS_SECRETS_FILE: join(folder, 'start', 'secrets.json'),
          PORTCULLIS_DEV_CIMD_LOOPBACK: 'true',
          PORTCULLIS_DEV_CIMD_CA: caFile,
        },
      })
      const child = running
      const output = await new Promise<string>((resolve, reject) => {
        let text = ''
        const timer = setTimeout(() => reject(new Error(`no start: ${text}`)), 90_000)
        const onData = (chunk: Buffer) => {
          text += chunk.toString()
          if (/stop with Ctrl\+C/.test(text)) {
            clearTimeout(timer)
            resolve(text)
          }
        }
        child.stdout?.on('data', onData)
        child.stderr?.on('data', onData)
        child.once('exit', (code) => {
          clearTimeout(timer)
          reject(new Error(`exited with ${code}: ${text}`))
        })
      })
      expect(output).toContain(
        'client metadata documents (development): fetched from loopback too, an extra CA trusted (PORTCULLIS_DEV_CIMD_CA)',
      )
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1] ?? ''
      const clientId = documents.client('/started-agent.json', { redirect_uris: [REDIRECT] })
      const answer = await authorize({ url } as TestApp, clientId, 'pnpm-start')
      expect(answer.status).toBe(303)
      expect(answer.headers.get('location')).toMatch(/\/oauth\/interaction\//)
      expect(documents.hits.get('/started-agent.json')).toBeGreaterThan(0)
    } finally {
      const pid = running?.pid
      if (pid !== undefined && running?.exitCode === null) {
        const exited = new Promise((resolve) => running?.once('exit', resolve))
        process.kill(-pid, 'SIGTERM')
        await exited
      }
      await database.close()
    }
  }, 120_000)
})

describe('the development settings, where they are refused', () => {
  it('reads them into the authorization server options', () => {
    expect(
      readConfig({ PORTCULLIS_DEV_CIMD_LOOPBACK: 'true', PORTCULLIS_DEV_CIMD_CA: caFile })
        .authorizationServer,
    ).toEqual({ clientIdMetadataDocuments: { allowInsecureLoopback: true, ca: [TEST_CA.trim()] } })
    expect(readConfig({}).authorizationServer).toBeUndefined()
    expect(() => readConfig({ PORTCULLIS_DEV_CIMD_LOOPBACK: 'perhaps' })).toThrow(
      'PORTCULLIS_DEV_CIMD_LOOPBACK must be true or false',
    )
  })

  it('refuses them under NODE_ENV=production, off loopback and behind a public URL', () => {
    const loopback = { PORTCULLIS_DEV_CIMD_LOOPBACK: 'true' }
    expect(() => readConfig({ ...loopback, NODE_ENV: 'production' })).toThrow(
      'PORTCULLIS_DEV_CIMD_LOOPBACK: a development setting, refused with NODE_ENV=production',
    )
    expect(() => readConfig({ PORTCULLIS_DEV_CIMD_CA: caFile, NODE_ENV: 'production' })).toThrow(
      /PORTCULLIS_DEV_CIMD_CA: a development setting/,
    )
    expect(() => readConfig({ ...loopback, HOST: '0.0.0.0' })).toThrow(
      /refused unless the app listens on loopback/,
    )
    expect(() => readConfig({ ...loopback, PORTCULLIS_PUBLIC_URL: 'https://demo.example' })).toThrow(
      /refused unless the app listens on loopback/,
    )
    expect(
      readConfig({ ...loopback, PORTCULLIS_PUBLIC_URL: 'http://localhost:3000' }).authorizationServer,
    ).toEqual({ clientIdMetadataDocuments: { allowInsecureLoopback: true } })
  })

  it('refuses a certificate file that cannot be read or holds no certificate', async () => {
    expect(() => readConfig({ PORTCULLIS_DEV_CIMD_CA: join(folder, 'missing.pem') })).toThrow(
      /PORTCULLIS_DEV_CIMD_CA: cannot read .*missing\.pem \(ENOENT\)/,
    )
    const notPem = join(folder, 'key.txt')
    await writeFile(notPem, 'not a certificate')
    expect(() => readConfig({ PORTCULLIS_DEV_CIMD_CA: notPem })).toThrow(/holds no PEM certificate/)
  })

  it('`pnpm start` says so on stderr and exits, before it starts anything', () => {
    const run = spawnSync('pnpm', ['start'], {
      cwd: appRoot,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NODE_ENV: 'production', PORTCULLIS_DEV_CIMD_LOOPBACK: 'true', PORT: '0' },
    })
    expect(run.status).not.toBe(0)
    expect(run.stderr).toContain(
      'PORTCULLIS_DEV_CIMD_LOOPBACK: a development setting, refused with NODE_ENV=production',
    )
  }, 90_000)
})
