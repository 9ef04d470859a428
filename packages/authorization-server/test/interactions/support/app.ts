import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Impersonator } from '@portcullis/core/authentication'
import type { LocalSession } from '@portcullis/core/oidc'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import express from 'express'
import Fastify, { type FastifyInstance } from 'fastify'
import { exportJWK, generateKeyPair } from 'jose'
import Provider, { errors, interactionPolicy } from 'oidc-provider'
import { createInteractions, type InteractionsOptions, stepUpReauthentication } from '../../../src/index.js'
import type { InteractionHandler } from '../../../src/interaction-handler.js'
import type { Browser } from './browser.js'

export const RESOURCE = 'https://notes.example/mcp'
export const CLIENT_ID = 'https://client.example/oauth/metadata.json'
export const CLIENT_NAME = 'Notes Assistant'
export const REDIRECT_URI = 'https://callback.example/cb'
export const HOSTILE_CLIENT_ID = 'https://evil.example/client.json'
export const HOSTILE_NAME = `<script>alert(1)</script><img src=x onerror="alert(2)">'&`
export const NATIVE_CLIENT_ID = 'https://native.example/client.json'
export const NATIVE_REDIRECT_URI = 'http://127.0.0.1/callback'
export const STEP_UP_COOKIE = 'app_step_up'

export interface AppSession extends LocalSession {
  authenticatedAt: Date
  /** Set when an administrator acts as the account (the session is an impersonation). */
  impersonator?: Impersonator
}

/** A provider built the way the server configures it: the login prompt always asked of the application. */
async function buildProvider(issuer: string): Promise<Provider> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true })
  const jwk = { ...(await exportJWK(privateKey)), alg: 'ES256', use: 'sig', kid: 'test' }
  const policy = interactionPolicy.base()
  policy
    .get('login')
    ?.checks.add(
      new interactionPolicy.Check(
        'application_session',
        'the application session signs the user in',
        (ctx) =>
          ctx.oidc.result?.login === undefined
            ? interactionPolicy.Check.REQUEST_PROMPT
            : interactionPolicy.Check.NO_NEED_TO_PROMPT,
      ),
    )
  const client = (clientId: string, name: string, redirectUri = REDIRECT_URI) => ({
    client_id: clientId,
    client_name: name,
    ...(redirectUri === REDIRECT_URI ? {} : { application_type: 'native' as const }),
    token_endpoint_auth_method: 'none' as const,
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code'],
    response_types: ['code' as const],
    id_token_signed_response_alg: 'ES256' as const,
  })
  const provider = new Provider(issuer, {
    clients: [
      client(CLIENT_ID, CLIENT_NAME),
      client(HOSTILE_CLIENT_ID, HOSTILE_NAME),
      client(NATIVE_CLIENT_ID, 'Desktop Notes', NATIVE_REDIRECT_URI),
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    pkce: { required: () => true },
    interactions: {
      policy,
      url: (_ctx, interaction) => `${new URL(issuer).pathname}/interaction/${interaction.uid}`,
    },
    features: {
      devInteractions: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== RESOURCE) throw new errors.InvalidTarget()
          return {
            scope: 'notes:read notes:write',
            audience: RESOURCE,
            accessTokenFormat: 'jwt' as const,
            accessTokenTTL: 300,
            jwt: { sign: { alg: 'ES256' } },
          }
        },
      },
    },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
  })
  provider.on('server_error', (_ctx, error) => {
    throw error
  })
  return provider
}

/**
 * The application side of the interactions: its own session (the `app_session` cookie), the real
 * `createInteractions` reading it, and `stepUpReauthentication` over a real `StepUpService`.
 */
export interface ApplicationSessions {
  readonly stepUp: StepUpService
  readonly interactions: InteractionHandler
  /** Signs `accountId` into the application's own session in `browser`. */
  signIn(browser: Pick<Browser, 'setCookie'>, accountId: string, authenticatedAt?: Date): AppSession
  /** What the application's reauthentication page does: a one-use credential in the step-up cookie. */
  reauthenticate(
    browser: Pick<Browser, 'setCookie'>,
    session: AppSession,
    options?: { authenticatedAt?: Date; purpose?: string },
  ): Promise<string>
}

/** The name the application knows an account by: `alice-3` is Alice. */
export const displayNameOf = (accountId: string): string => {
  const first = accountId.split('-')[0] ?? accountId
  return `${first.charAt(0).toUpperCase()}${first.slice(1)}`
}

export function applicationSessions(overrides: Partial<InteractionsOptions> = {}): ApplicationSessions {
  const sessions = new Map<string, AppSession>()
  const stepUp = new StepUpService({ store: new MemoryStepUpStore() })
  const sessionOf = (req: IncomingMessage) => {
    const match = /(?:^|;\s*)app_session=([^;]+)/.exec(req.headers.cookie ?? '')
    return match?.[1] === undefined ? undefined : sessions.get(match[1])
  }
  const interactions = createInteractions({
    currentUser: async (req) => {
      const session = sessionOf(req)
      return session === undefined
        ? undefined
        : {
            accountId: session.accountId,
            name: displayNameOf(session.accountId),
            authenticatedAt: session.authenticatedAt,
            amr: ['pwd'],
            ...(session.impersonator === undefined ? {} : { impersonator: session.impersonator }),
          }
    },
    signInUrl: (returnTo) => `/signin?return_to=${encodeURIComponent(returnTo)}`,
    reauthentication: stepUpReauthentication({
      service: stepUp,
      url: (returnTo) => `/reauthenticate?purpose=oauth-authorize&return_to=${encodeURIComponent(returnTo)}`,
      tokenOf: (req) => /(?:^|;\s*)app_step_up=([^;]+)/.exec(req.headers.cookie ?? '')?.[1],
      session: async (req) => sessionOf(req),
    }),
    scopeDescriptions: { 'notes:read': 'Read your notes', 'notes:write': 'Change your notes' },
    ...overrides,
  })
  return {
    stepUp,
    interactions,
    signIn(browser, accountId, authenticatedAt = new Date()) {
      const id = randomBytes(16).toString('base64url')
      const session: AppSession = {
        accountId,
        securityEpoch: 1,
        sessionHandle: `handle-${id}`,
        authenticatedAt,
      }
      sessions.set(id, session)
      browser.setCookie('app_session', id)
      return session
    },
    async reauthenticate(browser, session, options = {}) {
      const credential = await stepUp.issue({
        accountId: session.accountId,
        purpose: options.purpose ?? 'oauth-authorize',
        securityEpoch: session.securityEpoch,
        sessionBinding: session.sessionHandle,
        ...(options.authenticatedAt === undefined ? {} : { authenticatedAt: options.authenticatedAt }),
      })
      browser.setCookie(STEP_UP_COOKIE, credential.reveal())
      return credential.reveal()
    },
  }
}

export interface TestApp extends ApplicationSessions {
  readonly origin: string
  readonly provider: Provider
  /** An authorization request with PKCE; returns its URL and the verifier. */
  authorize(params?: Record<string, string>): { url: string; verifier: string; state: string }
  close(): Promise<void>
}

type Mount = 'express' | 'fastify'

export async function startApp(mount: Mount, overrides: Partial<InteractionsOptions> = {}): Promise<TestApp> {
  const sessions = applicationSessions(overrides)
  const { interactions } = sessions
  let provider: Provider | undefined
  const dispatch = (req: IncomingMessage, res: ServerResponse) => {
    if (provider === undefined) throw new Error('not started')
    if ((req.url ?? '').startsWith('/interaction/')) return interactions.handle(req, res, provider)
    return provider.callback()(req, res)
  }
  let origin: string
  let close: () => Promise<void>
  if (mount === 'express') {
    const app = express()
    app.use('/oauth', (req, res) => void dispatch(req, res))
    const server: Server = createServer(app)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    close = () => new Promise((resolve) => server.close(() => resolve()))
  } else {
    const app: FastifyInstance = Fastify()
    await app.register(
      async (scope) => {
        scope.removeAllContentTypeParsers()
        scope.addContentTypeParser('*', (_request, _payload, done) => done(null))
        const route = async (
          request: { raw: IncomingMessage },
          reply: { hijack(): void; raw: ServerResponse },
        ) => {
          reply.hijack()
          // oidc-provider finds its mount path from `originalUrl`, as under Express.
          Object.assign(request.raw, { originalUrl: request.raw.url })
          request.raw.url = request.raw.url?.slice('/oauth'.length) || '/'
          await dispatch(request.raw, reply.raw)
        }
        scope.all('/', route)
        scope.all('/*', route)
      },
      { prefix: '/oauth' },
    )
    await app.listen({ port: 0, host: '127.0.0.1' })
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    close = () => app.close()
  }
  provider = await buildProvider(`${origin}/oauth`)
  const started = provider
  return {
    ...sessions,
    origin,
    provider: started,
    authorize(params = {}) {
      const verifier = randomBytes(32).toString('base64url')
      const state = randomBytes(8).toString('base64url')
      const query = new URLSearchParams({
        client_id: CLIENT_ID,
        redirect_uri: REDIRECT_URI,
        response_type: 'code',
        scope: 'notes:read',
        resource: RESOURCE,
        state,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        ...params,
      })
      return { url: `${origin}/oauth/auth?${query}`, verifier, state }
    },
    close,
  }
}
