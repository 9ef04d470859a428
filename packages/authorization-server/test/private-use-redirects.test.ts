import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, RESOURCE, startHarness } from './support/harness.js'
import { authorize, redeemCode } from './support/oauth-client.js'

/** Cursor's callback (RFC 8252 §7.1 private-use scheme). */
const CURSOR = 'cursor://anysphere.cursor-mcp/oauth/callback'

/** What Cursor sends to the registration endpoint: three redirect URIs and no application_type. */
const CURSOR_REGISTRATION = {
  client_name: 'Cursor',
  redirect_uris: [
    CURSOR,
    'https://www.cursor.com/agents/mcp/oauth/callback',
    'http://localhost:8787/callback',
  ],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
}

let h: Harness
beforeAll(async () => {
  h = await startHarness({
    overrides: {
      registration: { rateLimit: { perMinute: 1000 } },
      clients: { privateUseRedirectSchemes: ['cursor', 'com.example.app'] },
    },
  })
})
afterAll(async () => h.close())

const register = async (metadata: Record<string, unknown>) => {
  const response = await fetch(`${h.issuer}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Registered client',
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      ...metadata,
    }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** A metadata document served by the harness; `application_type: undefined` leaves the member out. */
function documentClient(metadata: Record<string, unknown>): string {
  const path = `/private-use-${randomUUID()}.json`
  const clientId = h.documents.client(path, metadata)
  const body = h.documents.routes.get(path)?.body as Record<string, unknown>
  for (const [key, value] of Object.entries(metadata)) if (value === undefined) delete body[key]
  return clientId
}

/** Authorizes to `redirectUri`, expects a 303 there with a code, and redeems the code. */
async function codeDeliveredTo(clientId: string, redirectUri: string): Promise<void> {
  const outcome = await authorize(h.issuer, { clientId, redirectUri, resource: RESOURCE })
  expect(outcome.response.status).toBe(303)
  const location = outcome.response.headers.get('location') ?? ''
  expect(location.startsWith(`${redirectUri}?code=`)).toBe(true)
  expect(outcome.redirect?.protocol).toBe(`${new URL(redirectUri).protocol}`)
  expect(typeof outcome.code).toBe('string')
  const token = await redeemCode(h.issuer, clientId, redirectUri, outcome.code as string, outcome.verifier)
  expect(token.status).toBe(200)
  expect(typeof token.body.access_token).toBe('string')
}

/** An authorization the server answers itself: no redirect, no code. */
async function noCodeFor(clientId: string, redirectUri: string): Promise<number> {
  const outcome = await authorize(h.issuer, { clientId, redirectUri, resource: RESOURCE })
  expect(outcome.redirect).toBeUndefined()
  expect(outcome.code).toBeUndefined()
  await outcome.response.body?.cancel()
  return outcome.response.status
}

describe('clients.privateUseRedirectSchemes: listed private-use schemes for native clients', () => {
  it('a native metadata document with a cursor:// redirect URI gets its code there (303)', async () => {
    const clientId = documentClient({ application_type: 'native', redirect_uris: [CURSOR] })
    await codeDeliveredTo(clientId, CURSOR)
  })

  it("a metadata document naming no application_type is native (the server's default)", async () => {
    const clientId = documentClient({ application_type: undefined, redirect_uris: [CURSOR] })
    expect(h.documents.routes.get(new URL(clientId).pathname)?.body).not.toHaveProperty('application_type')
    await codeDeliveredTo(clientId, CURSOR)
  })

  it('a native registration of a listed scheme is accepted and completes the flow', async () => {
    const uri = 'com.example.app:/oauth2redirect'
    const { status, body } = await register({ application_type: 'native', redirect_uris: [uri] })
    expect(status).toBe(201)
    await codeDeliveredTo(body.client_id as string, uri)
  })

  it("Cursor's own registration (no application_type: native by default) gets its code at cursor://", async () => {
    const { status, body } = await register(CURSOR_REGISTRATION)
    expect(status).toBe(201)
    expect(body.application_type).toBe('native')
    expect(body.redirect_uris).toEqual(CURSOR_REGISTRATION.redirect_uris)
    await codeDeliveredTo(body.client_id as string, CURSOR)
    // The client is built again from the store (no request at hand): still native, still allowed.
    const stored = await h.store.find('Client', { id: body.client_id as string })
    expect(stored?.payload.application_type).toBe('native')
    await codeDeliveredTo(body.client_id as string, 'http://localhost:8787/callback')
  })

  it('matches such a redirect URI exactly: another path, query, case or host gets no code', async () => {
    const clientId = documentClient({ application_type: 'native', redirect_uris: [CURSOR] })
    for (const uri of [
      `${CURSOR}/other`,
      `${CURSOR}?next=1`,
      'cursor://anysphere.cursor-mcp/oauth/Callback',
      'cursor://evil.example/oauth/callback',
      'cursor://anysphere.cursor-mcp:1/oauth/callback',
    ]) {
      expect({ uri, status: await noCodeFor(clientId, uri) }).toEqual({ uri, status: 400 })
    }
  })

  it('refuses a web client a listed scheme: registration and metadata document', async () => {
    const registered = await register({ application_type: 'web', redirect_uris: [CURSOR] })
    expect(registered.status).toBe(400)
    expect(registered.body.error).toBe('invalid_redirect_uri')
    expect(registered.body.client_id).toBeUndefined()
    expect(registered.body.error_description).toContain('native clients only')
    const cursorAsWeb = await register({ ...CURSOR_REGISTRATION, application_type: 'web' })
    expect(cursorAsWeb.body.error).toBe('invalid_redirect_uri')

    const clientId = documentClient({ application_type: 'web', redirect_uris: [CURSOR] })
    expect(await noCodeFor(clientId, CURSOR)).toBe(400)
  })

  it('refuses a scheme that is not listed with invalid_redirect_uri, even for a native client', async () => {
    for (const uri of [
      'vscode://vscode.mcp/callback',
      'cursorx://anysphere.cursor-mcp/cb',
      'javascript:alert(1)',
    ]) {
      const registered = await register({ application_type: 'native', redirect_uris: [uri] })
      expect({ uri, status: registered.status, error: registered.body.error }).toEqual({
        uri,
        status: 400,
        error: 'invalid_redirect_uri',
      })
      expect(await register({ redirect_uris: [uri] })).toMatchObject({ status: 400 })
      const clientId = documentClient({ application_type: 'native', redirect_uris: [uri] })
      expect(await noCodeFor(clientId, uri)).toBe(400)
    }
  })

  it('refuses a listed scheme with userinfo', async () => {
    for (const uri of [
      'cursor://user:secret@anysphere.cursor-mcp/oauth/callback',
      'cursor://user@anysphere/cb',
    ]) {
      const registered = await register({ application_type: 'native', redirect_uris: [uri] })
      expect(registered.body.error).toBe('invalid_redirect_uri')
      const clientId = documentClient({ application_type: 'native', redirect_uris: [uri] })
      expect(await noCodeFor(clientId, uri)).toBe(400)
    }
  })

  it('keeps http on a public host refused beside an allowed private-use URI', async () => {
    const registered = await register({ redirect_uris: [CURSOR, 'http://evil.test/cb'] })
    expect(registered.status).toBe(400)
    expect(registered.body.error).toBe('invalid_redirect_uri')
  })
})

describe('without the option (the default)', () => {
  let plain: Harness
  beforeAll(async () => {
    plain = await startHarness({ overrides: { registration: { rateLimit: { perMinute: 1000 } } } })
  })
  afterAll(async () => plain.close())

  it("refuses Cursor's registration and a native cursor:// document", async () => {
    const response = await fetch(`${plain.issuer}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...CURSOR_REGISTRATION, application_type: 'native' }),
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: string }).error).toBe('invalid_redirect_uri')
    const clientId = plain.documents.client(`/plain-${randomUUID()}.json`, {
      application_type: 'native',
      redirect_uris: [CURSOR],
    })
    const outcome = await authorize(plain.issuer, { clientId, redirectUri: CURSOR, resource: RESOURCE })
    expect(outcome.code).toBeUndefined()
    expect(outcome.response.status).toBe(400)
    await outcome.response.body?.cancel()
  })
})
