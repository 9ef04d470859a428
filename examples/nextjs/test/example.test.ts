import { randomBytes } from 'node:crypto'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, nextBuild, nextStart, type RunningApp } from './support/next-app.js'

// Test-only demo credentials, handed to the server through its environment.
const EMAIL = 'demo@example.test'
const PASSWORD = 'correct horse battery staple'
const API_KEY = `example_${randomBytes(12).toString('base64url')}_${randomBytes(32).toString('base64url')}`
const SESSION_COOKIE = '__Host-portcullis-session'

let app: RunningApp | undefined
let origin: string

beforeAll(async () => {
  // `next build` evaluates the route modules; the demo data is only created by `next start`.
  await nextBuild({}, 300_000)
  const port = await freePort()
  origin = `http://127.0.0.1:${port}`
  app = await nextStart(
    { PUBLIC_ORIGIN: origin, DEMO_EMAIL: EMAIL, DEMO_PASSWORD: PASSWORD, DEMO_API_KEY: API_KEY },
    60_000,
    port,
  )
}, 400_000)

afterAll(async () => {
  await app?.stop()
})

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

describe('the Next.js example, built and started', () => {
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
    await expectProblem(await fetch(url('/api/me'), { headers: { cookie } }), 401, 'authentication.required')
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
    expect(JSON.parse(String(content !== undefined && 'text' in content ? content.text : ''))).toMatchObject({
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
})
