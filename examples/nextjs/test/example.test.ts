// The example as a user runs it: installed from the packed tarballs in a folder of its own (no workspace
// link, no TypeScript source), built with Turbopack and with webpack, started with `next start` on the
// Postgres stores (a real server, through a proxy the test can take down), and driven over HTTP.
import { randomBytes } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { type FaultProxy, startFaultProxy } from '@portcullis/database-tooling/fault-proxy'
import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import { createPostgresClient, MIGRATIONS, migrationStatus } from '@portcullis/postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Bundler, freePort, nextBuild, nextStart, type RunningApp } from './support/next-app.js'
import { type PackedExample, packedExample } from './support/packed-example.js'

// Test-only demo credentials, handed to the server through its environment.
const EMAIL = 'demo@example.test'
const PASSWORD = 'correct horse battery staple'
const API_KEY = `example_${randomBytes(12).toString('base64url')}_${randomBytes(32).toString('base64url')}`
const PEPPER = randomBytes(32).toString('base64url')
const SESSION_COOKIE = '__Host-portcullis-session'

let project: PackedExample | undefined
let database: TestDatabase | undefined
let proxy: FaultProxy | undefined
let app: RunningApp | undefined
let origin: string

beforeAll(async () => {
  database = await createTestDatabase()
  const target = new URL(database.connectionString)
  proxy = await startFaultProxy({ targetHost: target.hostname, targetPort: Number(target.port || 5432) })
}, 600_000)

afterAll(async () => {
  await app?.stop()
  await proxy?.close()
  await database?.close()
  await project?.remove()
})

function installed(): PackedExample {
  if (project === undefined) throw new Error('the example was not installed')
  return project
}

function databaseUrl(): string {
  if (database === undefined) throw new Error('no test database')
  return database.connectionString
}

/** Builds the installed example with `bundler`, then starts it on the Postgres stores, through the proxy. */
async function buildAndStart(bundler: Bundler): Promise<void> {
  project = await packedExample(bundler)
  const { directory } = project
  // `next build` evaluates the route modules: no database, no secret, no demo data is needed for it.
  await nextBuild(directory, bundler, {}, 400_000)
  const port = await freePort()
  origin = `http://127.0.0.1:${port}`
  app = await nextStart(
    directory,
    {
      PUBLIC_ORIGIN: origin,
      DEMO_EMAIL: EMAIL,
      DEMO_PASSWORD: PASSWORD,
      DEMO_API_KEY: API_KEY,
      DATABASE_URL: proxy?.through(databaseUrl()) ?? '',
      API_KEY_PEPPER: PEPPER,
    },
    90_000,
    port,
  )
}

/** Every file the server's route bundles load at run time from outside `.next` (Next.js's traces). */
async function tracedFiles(): Promise<string[]> {
  const server = join(installed().directory, '.next', 'server')
  const traces = (await readdir(server, { recursive: true })).filter((file) => file.endsWith('.nft.json'))
  const files: string[] = []
  for (const trace of traces) {
    const { files: listed } = JSON.parse(await readFile(join(server, trace), 'utf8')) as { files: string[] }
    files.push(...listed)
  }
  return files
}

function url(path: string): string {
  if (app === undefined) throw new Error('the app did not start')
  return `${app.url}${path}`
}

/** A sign-in as a page of the site sends it (same origin). */
async function signIn(password = PASSWORD): Promise<Response> {
  return fetch(url('/api/auth/login'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin, 'sec-fetch-site': 'same-origin' },
    body: JSON.stringify({ username: EMAIL, password }),
  })
}

/** The session cookie a response sets, as `name=value` for a `Cookie` header. */
function sessionCookieOf(response: Response): string {
  const cookie = response.headers
    .getSetCookie()
    .map((header) => header.split(';')[0] ?? '')
    .find((pair) => pair.startsWith(`${SESSION_COOKIE}=`))
  if (cookie === undefined) throw new Error(`no session cookie in ${response.headers.getSetCookie()}`)
  return cookie
}

async function expectProblem(response: Response, status: number, code: string): Promise<void> {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(await response.json()).toMatchObject({ status, code })
}

async function mcpClient(headers: Record<string, string>): Promise<Client> {
  // #region mcp-client
  const client = new Client({ name: 'example-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(url('/api/mcp')), { requestInit: { headers } })
  await client.connect(transport)
  // #endregion mcp-client
  return client
}

describe.each<Bundler>(['turbopack', 'webpack'])(
  'the example installed from the tarballs, built with %s',
  (bundler) => {
    beforeAll(() => buildAndStart(bundler), 600_000)
    afterAll(async () => {
      await app?.stop()
      app = undefined
    })

    it('bundles its one copy of Portcullis: no @portcullis module is loaded from node_modules at run time', async () => {
      const files = await tracedFiles()
      // The traces do list what stays outside the bundles (the native argon2 binding): the check can see.
      expect(files.some((file) => file.includes('node_modules/@node-rs/argon2'))).toBe(true)
      expect(files.filter((file) => file.includes('node_modules/@portcullis/'))).toEqual([])
    })

    it('migrated the database at startup to the last version of @portcullis/postgres', async () => {
      const client = createPostgresClient({ connectionString: databaseUrl(), maxConnections: 1 })
      try {
        const status = await migrationStatus(client)
        expect(status.applied.map((migration) => migration.version)).toEqual(
          MIGRATIONS.map((migration) => migration.version),
        )
        expect(status.pending).toEqual([])
        const accounts = await client.pool.query<{ count: string }>(
          'select count(*) from portcullis_accounts',
        )
        // one demo account, however many times the app started on this database
        expect(accounts.rows[0]?.count).toBe('1')
      } finally {
        await client.close()
      }
    })

    it('answers 503 with Retry-After while the database is down, and signs in again once it is back', async () => {
      await proxy?.down()
      try {
        const refused = await signIn()
        expect(refused.status).toBe(503)
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
        expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/)
        const body = await refused.text()
        expect(body).not.toContain(PASSWORD)
        expect(body).not.toContain('postgres://')
        expect(refused.headers.getSetCookie()).toEqual([])
      } finally {
        await proxy?.up()
      }
      expect((await signIn()).status).toBe(200)
    })

    it('serves its page', async () => {
      const response = await fetch(url('/'))
      expect(response.status).toBe(200)
      expect(await response.text()).toContain('Portcullis on Next.js')
    })

    it('signs in through the catch-all, then reads /api/me (its own route file) with the session', async () => {
      const login = await signIn()
      expect(login.status).toBe(200)
      const cookie = sessionCookieOf(login)
      const setCookie = login.headers.getSetCookie().find((header) => header.startsWith(`${SESSION_COOKIE}=`))
      expect(setCookie).toMatch(/; HttpOnly; Secure; SameSite=(Lax|Strict)/)
      const me = await fetch(url('/api/me'), { headers: { cookie } })
      expect(me.status).toBe(200)
      const body = (await me.json()) as { account: string; email: string }
      expect(body.email).toBe(EMAIL)
      expect(body.account).toMatch(/^[0-9a-f-]{36}$/)
    })

    it('signs out through the catch-all: the session no longer reads /api/me', async () => {
      const cookie = sessionCookieOf(await signIn())
      expect((await fetch(url('/api/me'), { headers: { cookie } })).status).toBe(200)
      const crossSite = await fetch(url('/api/auth/logout'), {
        method: 'POST',
        headers: { cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      })
      await expectProblem(crossSite, 403, 'local.csrf_refused')
      expect((await fetch(url('/api/me'), { headers: { cookie } })).status).toBe(200)
      const logout = await fetch(url('/api/auth/logout'), {
        method: 'POST',
        headers: { cookie, origin, 'sec-fetch-site': 'same-origin' },
      })
      expect(logout.status).toBe(204)
      await expectProblem(
        await fetch(url('/api/me'), { headers: { cookie } }),
        401,
        'authentication.required',
      )
    })

    it('refuses /api/me without a session, and with a forged one, as problem+json 401', async () => {
      await expectProblem(await fetch(url('/api/me')), 401, 'authentication.required')
      const forged = `${SESSION_COOKIE}=${randomBytes(32).toString('base64url')}`
      const response = await fetch(url('/api/me'), { headers: { cookie: forged } })
      expect(response.status).toBe(401)
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    })

    it('refuses a wrong password, and a sign-in posted from another site', async () => {
      const wrong = await signIn('not the password at all')
      expect(wrong.status).toBe(401)
      expect(wrong.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(wrong.headers.getSetCookie()).toEqual([])
      const crossSite = await fetch(url('/api/auth/login'), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: 'https://evil.example',
          'sec-fetch-site': 'cross-site',
        },
        body: JSON.stringify({ username: EMAIL, password: PASSWORD }),
      })
      await expectProblem(crossSite, 403, 'local.csrf_refused')
    })

    it('serves a declared route through the catch-all, with its path parameters', async () => {
      const cookie = sessionCookieOf(await signIn())
      const note = await fetch(url('/api/notes/2'), { headers: { cookie } })
      expect(note.status).toBe(200)
      expect(await note.json()).toMatchObject({ id: '2', title: 'Agents' })
      await expectProblem(await fetch(url('/api/notes/2')), 401, 'authentication.required')
      await expectProblem(await fetch(url('/api/notes/99'), { headers: { cookie } }), 404, 'note.not_found')
      await expectProblem(await fetch(url('/api/nowhere'), { headers: { cookie } }), 404, 'request.not_found')
    })

    it('lets an MCP client (official SDK) list and read the published routes with the API key', async () => {
      const client = await mcpClient({ 'x-api-key': API_KEY })
      const { resources } = await client.listResources()
      expect(resources.map((resource) => resource.uri)).toEqual(['example://openapi', 'example://notes'])
      const { resourceTemplates } = await client.listResourceTemplates()
      expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['example://notes/{id}'])

      const list = await client.readResource({ uri: 'example://notes' })
      expect(list.contents[0]).toMatchObject({ uri: 'example://notes', mimeType: 'application/json' })
      const one = await client.readResource({ uri: 'example://notes/1' })
      const [content] = one.contents
      expect(content?.mimeType).toBe('application/json')
      expect(
        JSON.parse(String(content !== undefined && 'text' in content ? content.text : '')),
      ).toMatchObject({
        id: '1',
        title: 'Welcome',
      })
      // A read runs the route: its 404 is a failed read, not a resource.
      await expect(client.readResource({ uri: 'example://notes/99' })).rejects.toBeInstanceOf(McpError)
      await client.close()
    })

    it('lets an MCP client signed in with the session read the same resources', async () => {
      const cookie = sessionCookieOf(await signIn())
      // A cookie-authenticated POST passes the CSRF check like any other: the browser's same-origin headers.
      const client = await mcpClient({ cookie, origin, 'sec-fetch-site': 'same-origin' })
      const one = await client.readResource({ uri: 'example://notes/2' })
      expect(one.contents[0]).toMatchObject({ uri: 'example://notes/2', mimeType: 'application/json' })
      await client.close()
      const crossSite = await mcpClient({
        cookie,
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
      }).then(
        () => undefined,
        (caught: unknown) => caught,
      )
      expect(crossSite).toBeInstanceOf(StreamableHTTPError)
      expect((crossSite as StreamableHTTPError).code).toBe(403)
    })

    it('refuses the MCP endpoint without credentials and with an unknown API key', async () => {
      const unknownKey = `example_${randomBytes(12).toString('base64url')}_${randomBytes(32).toString('base64url')}`
      for (const headers of [{}, { 'x-api-key': unknownKey }]) {
        const error = await mcpClient(headers).then(
          () => undefined,
          (caught: unknown) => caught,
        )
        expect(error).toBeInstanceOf(StreamableHTTPError)
        expect((error as StreamableHTTPError).code).toBe(401)
      }
      const raw = await fetch(url('/api/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/list' }),
      })
      await expectProblem(raw, 401, 'authentication.required')
    })
  },
)
