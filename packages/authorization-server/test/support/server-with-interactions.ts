import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryOAuthServerStore } from '@portcullis/core/authorization-server'
import type { MemoryMailOutbox } from '@portcullis/core/mail'
import express from 'express'
import Fastify from 'fastify'
import { createLocalJWKSet, type JWTPayload, jwtVerify } from 'jose'
import { expect } from 'vitest'
import {
  type AuthorizationServer,
  createAuthorizationServer,
  fastifyMount,
  GRANT_ID_CLAIM,
  generateSigningKey,
  type InteractionsOptions,
} from '../../src/index.js'
import { type ApplicationSessions, applicationSessions, REDIRECT_URI } from '../interactions/support/app.js'
import { Browser } from '../interactions/support/browser.js'
import { callbackOf, consentPage, post } from '../interactions/support/flow.js'
import { DocumentServer, TEST_CA } from './document-server.js'
import { pkce, redeemCode } from './oauth-client.js'

export const NOTES = 'https://notes.example/mcp'
export const FILES = 'https://files.example/mcp'
export const NATIVE_REDIRECT_URI = 'http://127.0.0.1/callback'

/** Express with a body parser in front of the mount (as many applications have) is its own case. */
export type Mount = 'express' | 'fastify' | 'express-parsed'

/**
 * The whole stack as an application runs it: `createAuthorizationServer` with the real `createInteractions`
 * (the application's session and step-up reauthentication from `applicationSessions`), mounted at /oauth
 * on Express or Fastify over loopback HTTP, clients identified by Client ID Metadata Documents.
 */
export interface FullStack extends ApplicationSessions {
  readonly origin: string
  readonly issuer: string
  readonly server: AuthorizationServer
  readonly store: MemoryOAuthServerStore
  readonly accounts: MemoryAccountStore
  readonly documents: DocumentServer
  /** A web client (https redirect URI `REDIRECT_URI`) whose client id is its document's URL. */
  readonly webClientId: string
  /** A native client (loopback redirect URI `NATIVE_REDIRECT_URI`). */
  readonly nativeClientId: string
  /** Creates an active account named `name` plus a counter (every test signs in accounts of its own). */
  newAccount(name: string): Promise<string>
  /** Every grant id the store was asked to revoke. */
  readonly revoked: readonly string[]
  /** Verifies an access token against the server's published keys (issuer and audience checked). */
  verifyAccessToken(token: string, audience: string): Promise<JWTPayload>
  close(): Promise<void>
}

export interface AuthorizationUrl {
  readonly url: string
  readonly verifier: string
  readonly state: string
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void

/**
 * The application's own sign-in and reauthentication pages (Express mounts), as a browser uses them: a
 * form that signs an account into the application's session, and one that leaves the step-up
 * credential of `oauth-authorize`; both return to the interaction.
 */
function applicationPages(app: express.Express, sessions: ApplicationSessions): void {
  const cookieJar = (res: express.Response) => ({
    setCookie: (name: string, value: string) =>
      res.append('Set-Cookie', `${name}=${value}; Path=/; HttpOnly; SameSite=Lax`),
  })
  const back = (value: unknown) =>
    typeof value === 'string' && /^\/oauth\/interaction\/[A-Za-z0-9_-]+$/.test(value) ? value : '/'
  const page = (title: string, fields: string) =>
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><form method="post">${fields}</form></body></html>`
  // As an application's pages are: forms only to itself (browsers apply it to the redirects that follow).
  app.use(['/signin', '/reauthenticate'], (_req, res, next) => {
    res.setHeader('Content-Security-Policy', "default-src 'self'; form-action 'self'")
    next()
  })
  app.get('/signin', (req, res) => {
    const to = back(req.query.return_to)
    res
      .type('html')
      .send(
        page(
          'Sign in',
          `<input type="hidden" name="return_to" value="${to}"><label>Account <input name="account"></label><button type="submit">Sign in</button>`,
        ),
      )
  })
  app.post('/signin', express.urlencoded({ extended: false }), (req, res) => {
    sessions.signIn(cookieJar(res), String(req.body.account))
    res.redirect(303, back(req.body.return_to))
  })
  app.get('/reauthenticate', (req, res) => {
    const to = back(req.query.return_to)
    res
      .type('html')
      .send(
        page(
          'Confirm it is you',
          `<input type="hidden" name="return_to" value="${to}"><label>Account <input name="account"></label><button type="submit">Confirm</button>`,
        ),
      )
  })
  app.post('/reauthenticate', express.urlencoded({ extended: false }), async (req, res) => {
    const accountId = String(req.body.account)
    // The application's reauthentication: a fresh session (a new sign-in) and its step-up credential.
    const jar = cookieJar(res)
    const session = sessions.signIn(jar, accountId)
    await sessions.reauthenticate(jar, session)
    res.redirect(303, back(req.body.return_to))
  })
}

export async function startFullStack(
  mount: Mount,
  overrides: Partial<InteractionsOptions> = {},
  /** The store's outbox (a connection's notification is written with its grant). */
  storeOptions: { readonly outbox?: MemoryMailOutbox } = {},
): Promise<FullStack> {
  const documents = await new DocumentServer().start()
  const webClientId = documents.client('/web-client.json', {
    client_name: 'Notes Assistant',
    application_type: 'web',
    redirect_uris: [REDIRECT_URI],
  })
  const nativeClientId = documents.client('/native-client.json', {
    client_name: 'Desktop Notes',
    redirect_uris: [NATIVE_REDIRECT_URI],
  })
  const accounts = new MemoryAccountStore()
  let count = 0
  const newAccount = async (name: string) => {
    count += 1
    const accountId = `${name}-${count}`
    const created = await accounts.createAccount({
      accountId,
      username: accountId,
      passwordHash: 'not-a-real-hash',
      now: new Date(),
    })
    if (created.outcome !== 'created') throw new Error(`account ${accountId} not created`)
    return accountId
  }
  const store = new MemoryOAuthServerStore({ accounts, ...storeOptions })
  const revoked: string[] = []
  const revokeGrant = store.revokeGrant.bind(store)
  store.revokeGrant = async (grantId: string) => {
    revoked.push(grantId)
    await revokeGrant(grantId)
  }
  // A disconnection ends its grant in one store step (with its audit entry), not through revokeGrant.
  const disconnect = store.disconnect.bind(store)
  store.disconnect = async (...args: Parameters<typeof disconnect>) => {
    const ended = await disconnect(...args)
    if (ended) revoked.push(args[1])
    return ended
  }
  const sessions = applicationSessions(overrides)

  // The issuer names the listening port, so the framework listens before the server exists.
  let current: AuthorizationServer | undefined
  const late: { handler: Listener; metadata: Listener } = {
    handler: (req, res) => current?.handler(req, res),
    metadata: (req, res) => current?.metadataHandler(req, res),
  }
  let origin: string
  let stopFramework: () => Promise<void>
  if (mount === 'fastify') {
    const app = Fastify()
    await app.register(fastifyMount(late), { prefix: '/oauth' })
    app.get('/.well-known/oauth-authorization-server/oauth', (request, reply) => {
      reply.hijack()
      late.metadata(request.raw, reply.raw)
    })
    origin = await app.listen({ port: 0, host: '127.0.0.1' })
    stopFramework = () => app.close()
  } else {
    const app = express()
    if (mount === 'express-parsed') app.use(express.urlencoded({ extended: false }), express.json())
    applicationPages(app, sessions)
    app.get('/.well-known/oauth-authorization-server/oauth', late.metadata)
    app.use('/oauth', late.handler)
    const http: Server = createServer(app)
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
    stopFramework = async () => {
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    }
  }
  const issuer = `${origin}/oauth`
  const server = await createAuthorizationServer({
    issuer,
    store,
    accounts,
    interactions: sessions.interactions,
    resources: [
      { indicator: NOTES, scopes: { 'notes:read': 'Read notes', 'notes:write': 'Write notes' } },
      { indicator: FILES, scopes: { 'files:read': 'Read files' } },
    ],
    signingKeys: [await generateSigningKey()],
    clientIdMetadataDocuments: { allowInsecureLoopback: true, ca: TEST_CA },
  })
  current = server
  const jwks = await (await fetch(`${issuer}/jwks`)).json()
  const keySet = createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0])

  return {
    ...sessions,
    origin,
    issuer,
    server,
    store,
    accounts,
    documents,
    webClientId,
    nativeClientId,
    newAccount,
    revoked,
    async verifyAccessToken(token, audience) {
      const { payload, protectedHeader } = await jwtVerify(token, keySet, {
        issuer,
        audience,
        typ: 'at+jwt',
      })
      if (protectedHeader.alg !== 'ES256') throw new Error(`unexpected alg ${protectedHeader.alg}`)
      return payload
    },
    async close() {
      await server.close()
      await documents.stop()
      await stopFramework()
    },
  }
}

/** An authorization request URL (code, PKCE S256, one resource) and its verifier and state. */
export function authorizationUrl(
  stack: Pick<FullStack, 'issuer' | 'webClientId'>,
  params: Record<string, string> = {},
): AuthorizationUrl {
  const { verifier, challenge } = pkce()
  const state = pkce().verifier.slice(0, 16)
  const query = new URLSearchParams({
    client_id: stack.webClientId,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'notes:read',
    resource: NOTES,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...params,
  })
  return { url: `${stack.issuer}/auth?${query}`, verifier, state }
}

/** Redeems the code of an authorization response (PKCE verifier, resource) and verifies its access token. */
export async function redeemedTokens(
  stack: FullStack,
  location: string | undefined,
  request: Pick<AuthorizationUrl, 'verifier' | 'state'>,
) {
  const callback = callbackOf(location)
  expect(callback.get('state')).toBe(request.state)
  const code = callback.get('code')
  expect(code).toBeTruthy()
  const token = await redeemCode(
    stack.issuer,
    stack.webClientId,
    REDIRECT_URI,
    code as string,
    request.verifier,
    {
      resource: NOTES,
    },
  )
  expect(token.status).toBe(200)
  const claims = await stack.verifyAccessToken(token.body.access_token as string, NOTES)
  return { claims, refreshToken: token.body.refresh_token as string, grantId: claims[GRANT_ID_CLAIM] }
}

/** A fresh browser of `accountId` (signed in at `authenticatedAt`) that consents to notes:read for the web client. */
export async function connect(stack: FullStack, accountId: string, authenticatedAt: Date) {
  const browser = new Browser(stack.origin)
  const session = stack.signIn(browser, accountId, authenticatedAt)
  const request = authorizationUrl(stack)
  const page = await consentPage(browser, request.url)
  const { location } = await post(browser, page.url, { csrf: page.csrf, decision: 'approve' })
  return { accountId, browser, session, ...(await redeemedTokens(stack, location, request)) }
}
