import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client'
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  DocumentServer,
  TEST_CA,
} from '../../../packages/authorization-server/test/support/document-server.js'
import { demoAccountId } from '../src/accounts/local-accounts.js'
import type { RunningReferenceApp } from '../src/server.js'
import { step } from './support/cookie-jar.js'
import { enrollDemoTotp } from './support/demo-totp.js'
import { AgentBrowser, AgentOAuth } from './support/oauth-agent.js'
import { startSecondInstance, startTestApp, type TestApp } from './support/reference-app.js'

/**
 * The official MCP SDK clients sign in to the reference app from nothing, as a user would connect Claude
 * or Cursor: the 401's `resource_metadata`, the protected-resource and authorization-server metadata,
 * a Client ID Metadata Document (or RFC 7591 registration), the authorization code flow with PKCE
 * through the app's own sign-in (password, then the TOTP code) and consent page, the token, reads that
 * obey each route's policy, a refresh, and the user disconnecting the app on the page, after which a
 * second instance refuses the token.
 */
let app: TestApp
let other: RunningReferenceApp
const documents = new DocumentServer()
const REDIRECT = 'http://127.0.0.1:33418/callback'
let totpSecret = ''
let browser: AgentBrowser
const alice = () => ({ username: 'alice', password: app.password('alice'), totpSecret })

beforeAll(async () => {
  await documents.start()
  app = await startTestApp({
    authorizationServer: {
      registration: true,
      clientIdMetadataDocuments: { allowInsecureLoopback: true, ca: TEST_CA },
    },
  })
  // A second instance on the same database and secrets, reached at the same public origin.
  other = await startSecondInstance(app, 'portcullis-second')
  // alice signs in with her password and a TOTP code.
  totpSecret = await enrollDemoTotp(app, 'alice')
  browser = new AgentBrowser(app.url)
}, 120_000)

afterAll(async () => {
  await other?.close()
  await app?.close()
  await documents.stop()
})

const textOf = (contents: readonly unknown[]) =>
  JSON.parse((contents[0] as { text: string }).text) as Record<string, unknown>

/** `resources/list` straight over HTTP with a bearer token, at `base` (either instance). */
const listWith = (base: string, token: string) =>
  fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/list' }),
  })

/** Connects a 1.x SDK client: the first attempt ends in the browser, the second is signed in. */
async function connect1x(oauth: AgentOAuth): Promise<Client> {
  const url = new URL(`${app.url}/mcp`)
  const first = new StreamableHTTPClientTransport(url, { authProvider: oauth as never })
  await expect(new Client({ name: oauth.name, version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
    UnauthorizedError,
  )
  const authorizationUrl = oauth.saved.authorizationUrl as URL
  const back = await browser.authorize(authorizationUrl, alice(), REDIRECT)
  expect(back.searchParams.get('iss')).toBe(`${app.url}/oauth`)
  await first.finishAuth(back.searchParams.get('code') as string)
  const client = new Client({ name: oauth.name, version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: oauth as never }))
  return client
}

describe('the MCP endpoint tells a client where to sign in', () => {
  it('answers 401 with resource_metadata, whose authorization server publishes its metadata', async () => {
    const response = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/list' }),
    })
    expect(response.status).toBe(401)
    const challenge = response.headers.get('www-authenticate') ?? ''
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1]
    expect(metadataUrl).toBe(`${app.url}/.well-known/oauth-protected-resource/mcp`)
    const resource = await (await fetch(metadataUrl as string)).json()
    expect(resource).toMatchObject({
      resource: `${app.url}/mcp`,
      authorization_servers: [`${app.url}/oauth`],
      scopes_supported: ['resources:read', 'reports:read'],
    })
    const server = await (await fetch(`${app.url}/.well-known/oauth-authorization-server/oauth`)).json()
    expect(server).toMatchObject({
      issuer: `${app.url}/oauth`,
      client_id_metadata_document_supported: true,
      code_challenge_methods_supported: ['S256'],
      registration_endpoint: `${app.url}/oauth/reg`,
    })
  })
})

describe('the 1.x SDK client with a Client ID Metadata Document', () => {
  let oauth: AgentOAuth
  let client: Client

  beforeAll(async () => {
    const clientId = documents.client('/agent.json', {
      client_name: 'Reference test agent',
      redirect_uris: [REDIRECT],
    })
    oauth = new AgentOAuth(REDIRECT, 'Reference test agent', clientId)
    client = await connect1x(oauth)
  }, 60_000)
  afterAll(async () => client?.close())

  it('signed in as alice with her password and TOTP code, and saw the consent page name the client host', () => {
    expect(browser.visited).toContain('/sign-in')
    const consent = browser.consentPages.at(-1) ?? ''
    expect(consent).toContain(new URL(documents.origin).host)
    expect(consent).toContain('Reference test agent')
    expect(consent).toContain('resources:read')
    const claims = decodeJwt(oauth.saved.tokens?.access_token ?? '')
    expect(claims).toMatchObject({
      iss: `${app.url}/oauth`,
      aud: `${app.url}/mcp`,
      sub: demoAccountId('alice'),
      client_id: oauth.clientMetadataUrl,
    })
    expect(typeof claims.grant_id).toBe('string')
  })

  it('lists and reads as alice, each read under its route policy', async () => {
    const { resources } = await client.listResources()
    expect(resources.map((resource) => resource.uri)).toContain('reference://capabilities')
    const capabilities = await client.readResource({ uri: 'reference://capabilities' })
    expect(textOf(capabilities.contents)).toMatchObject({
      you: { id: demoAccountId('alice'), kind: 'user' },
    })
    const acme = await client.readResource({ uri: 'tenant://acme/projection' })
    expect(textOf(acme.contents)).toMatchObject({ tenant: { id: 'acme' } })
    await expect(client.readResource({ uri: 'tenant://initech/projection' })).rejects.toSatisfy(
      (error: unknown) =>
        error instanceof McpError && (error.data as { statusCode?: number }).statusCode === 403,
    )
  })

  it('refreshes when its access token is refused, and the refresh token rotates', async () => {
    const before = oauth.saved.tokens
    oauth.saved.tokens = { ...(before as NonNullable<typeof before>), access_token: 'expired.or.garbage' }
    const capabilities = await client.readResource({ uri: 'reference://capabilities' })
    expect(textOf(capabilities.contents)).toMatchObject({ you: { id: demoAccountId('alice') } })
    expect(oauth.saved.tokens?.refresh_token).toBeDefined()
    expect(oauth.saved.tokens?.refresh_token).not.toBe(before?.refresh_token)
  })

  it('is disconnected on the Connected apps page, and the next read on another instance is refused', async () => {
    const token = oauth.saved.tokens?.access_token as string
    const grantId = decodeJwt(token).grant_id as string
    expect((await listWith(other.url, token)).status).toBe(200)
    const page = await step(browser.jar, `${app.url}/connected-apps`, { headers: { accept: 'text/html' } })
    const html = await page.text()
    expect(html).toContain(`data-grant="${grantId}"`)
    expect(html).toContain(new URL(documents.origin).host)
    const disconnected = await step(browser.jar, `${app.url}/connected-apps/${grantId}/disconnect`, {
      method: 'POST',
      headers: { origin: app.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    })
    expect(disconnected.status).toBe(303)
    const start = performance.now()
    let status = 200
    while (status === 200 && performance.now() - start < 5_000) {
      status = (await listWith(other.url, token)).status
    }
    expect(status).toBe(401)
    // The refresh token died with the grant.
    oauth.saved.tokens = {
      ...(oauth.saved.tokens as NonNullable<AgentOAuth['saved']['tokens']>),
      access_token: 'x',
    }
    await expect(client.readResource({ uri: 'reference://capabilities' })).rejects.toThrow()
  })
})

describe('the 1.x SDK client with dynamic registration', () => {
  it('registers, signs in (the session is still there), and reads', async () => {
    const oauth = new AgentOAuth(REDIRECT, 'Registered test agent')
    const client = await connect1x(oauth)
    expect(oauth.saved.clientInformation?.client_id).toEqual(expect.any(String))
    const capabilities = await client.readResource({ uri: 'reference://capabilities' })
    expect(textOf(capabilities.contents)).toMatchObject({ you: { id: demoAccountId('alice') } })
    await client.close()
  }, 60_000)
})

describe('the 2.x SDK client with a Client ID Metadata Document', () => {
  it('signs in and reads', async () => {
    const clientId = documents.client('/agent-2.json', {
      client_name: 'Second test agent',
      redirect_uris: [REDIRECT],
    })
    const oauth = new AgentOAuth(REDIRECT, 'Second test agent', clientId)
    const url = new URL(`${app.url}/mcp`)
    const first = new Transport2(url, { authProvider: oauth as never })
    await expect(new Client2({ name: oauth.name, version: '1.0.0' }).connect(first)).rejects.toThrow()
    const back = await browser.authorize(oauth.saved.authorizationUrl as URL, alice(), REDIRECT)
    // The 2.x client checks the response's `iss` (RFC 9207) against the server it discovered.
    await first.finishAuth(back.searchParams)
    const client = new Client2({ name: oauth.name, version: '1.0.0' })
    await client.connect(new Transport2(url, { authProvider: oauth as never }))
    const capabilities = await client.readResource({ uri: 'reference://capabilities' })
    expect(textOf(capabilities.contents)).toMatchObject({ you: { id: demoAccountId('alice') } })
    await client.close()
  }, 60_000)
})

describe('an upstream sign-in during an authorization', () => {
  it('comes back to the interaction through /connect/resume (and nowhere else)', async () => {
    const clientId = documents.client('/agent-idp.json', {
      client_name: 'IdP test agent',
      redirect_uris: [REDIRECT],
    })
    const fresh = new AgentBrowser(app.url)
    const authorize = new URL(`${app.url}/oauth/auth`)
    for (const [name, value] of Object.entries({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'resources:read',
      resource: `${app.url}/mcp`,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 'upstream',
    })) {
      authorize.searchParams.set(name, value)
    }
    const toInteraction = await step(fresh.jar, authorize.href)
    const interaction = new URL(toInteraction.headers.get('location') ?? '', app.url).pathname
    expect(interaction).toMatch(/^\/oauth\/interaction\/[\w-]+$/)
    const toSignIn = await step(fresh.jar, `${app.url}${interaction}`, { headers: { accept: 'text/html' } })
    const signIn = new URL(toSignIn.headers.get('location') ?? '', app.url)
    expect(signIn.pathname).toBe('/sign-in')
    const page = await step(fresh.jar, signIn.href, { headers: { accept: 'text/html' } })
    expect(await page.text()).toContain('/auth/oauth/demo/login?return_to=%2Fconnect%2Fresume')
    // The IdP flow accepts that return path (it answers with the redirect to the IdP, not a refusal).
    const login = await step(fresh.jar, `${app.url}/auth/oauth/demo/login?return_to=%2Fconnect%2Fresume`)
    expect([302, 303]).toContain(login.status)
    const resumed = await step(fresh.jar, `${app.url}/connect/resume`)
    expect(resumed.status).toBe(303)
    expect(resumed.headers.get('location')).toBe(interaction)
    // A forged cookie sends nowhere but home.
    const forged = await fetch(`${app.url}/connect/resume`, {
      redirect: 'manual',
      headers: { cookie: `portcullis-connect=${encodeURIComponent('//evil.example/oauth/interaction/x')}` },
    })
    expect(forged.headers.get('location')).toBe('/')
  })
})
