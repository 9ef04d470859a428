import { ConfigurationError, integerBetween, type OptionsShape, readOptions } from '@portcullis/core/errors'
import {
  clearSessionCookie,
  type EpochBumpReason,
  LocalAccounts,
  type LocalSignIn,
  type LocalTransport,
  PendingSecondFactor,
  type SessionSignIn,
  type TokenSignIn,
} from '@portcullis/core/local-accounts'
import { anonymous, anyOf } from '@portcullis/core/policy'
import type { Request, RequestHandler, Response } from 'express'
import { HttpProblem, sendProblem } from '../problem/problem.js'
import type { SecureRouter } from '../routing/secure-router.js'
import type { Security } from '../security/create-security.js'
import { singleHeader } from '../security/credential-source.js'
import { requirePrincipal, securityOf } from '../security/request-context.js'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES, readRequestBody } from './body.js'
import { LOCAL_ROUTE_DOCS } from './openapi.js'
import { clientAddressOf, noStore, requestInfo } from './respond.js'

export interface LocalAccountRoutesOptions {
  /** The service (`new LocalAccounts({ profile, ... })`); its `mechanisms` must be registered with `security`. */
  readonly local: LocalAccounts
  /** The routes are registered on its routers: route policy, OpenAPI entries, problem+json. */
  readonly security: Pick<Security, 'router'>
  /** Prefix before `/auth/...`. Default none (`/auth/login`). */
  readonly base?: string
  /** Largest accepted request body. Default 16 KiB; at most 1 MiB. */
  readonly maxBodyBytes?: number
  /** Where the JWKS document is served (tokens and hybrid profiles). Default `{base}/auth/jwks.json`; `false`: not served. */
  readonly jwksPath?: string | false
  /** Observes every error a local-account route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: Request) => void
}

/**
 * The local-account middleware: mount it with `app.use(...)` after `security.middleware` and before the
 * application's routes. It refuses cross-site unsafe requests that carry the session cookie (403
 * `local.csrf_refused`) for every route behind it, then serves the `{base}/auth/...` routes.
 */
export interface LocalAccountRoutes extends RequestHandler {
  /**
   * Establishes a local sign-in for an account authenticated some other way (OAuth callbacks): a session
   * (the cookie is set on `response`, replacing the one the request came with) or a token pair (returned;
   * the caller sends it). Nothing is sent.
   */
  establishSignIn(
    request: Request,
    response: Response,
    input: { readonly accountId: string; readonly transport?: LocalTransport },
  ): Promise<LocalSignIn>
  /** A new session id for the request's session (after a privilege change); sets the cookie. */
  rotateSession(request: Request, response: Response): Promise<SessionSignIn>
  /**
   * After the account's security epoch moved outside these routes (an OAuth unlink: pass it as the OAuth
   * routes' `renewSignIn`): this instance believes the new epoch at once, every other session and token
   * family of the account ends, and the caller gets a fresh session (cookie set) or token pair (returned).
   */
  renewSignIn(
    request: Request,
    response: Response,
    change: { readonly accountId: string; readonly securityEpoch: number; readonly reason: EpochBumpReason },
  ): Promise<{ readonly session?: SessionSignIn; readonly tokens?: TokenSignIn }>
}

const OPTIONS: OptionsShape<LocalAccountRoutesOptions> = {
  local: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof LocalAccounts ? undefined : 'must be a LocalAccounts'),
  },
  security: { required: true, kind: 'object' },
  base: { kind: 'string' },
  maxBodyBytes: { kind: 'number', check: integerBetween(64, 1024 * 1024) },
  jwksPath: { kind: ['string', 'false'] },
  onError: { kind: 'function' },
}

const CSRF_REFUSED = {
  status: 403,
  code: 'local.csrf_refused',
  detail: 'Cross-site request refused',
} as const
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE'])

function tokenBody(pair: TokenSignIn) {
  return {
    access_token: pair.access_token,
    refresh_token: pair.refresh_token,
    token_type: pair.token_type,
    expires_in: pair.expires_in,
  }
}

function sessionBody(signIn: SessionSignIn) {
  return {
    accountId: signIn.accountId,
    csrfToken: signIn.csrfToken,
    expiresAt: signIn.expiresAt.toISOString(),
  }
}

/** 202: the password was right, the second factor is next. */
function pendingBody(pending: PendingSecondFactor) {
  return {
    secondFactorRequired: true,
    pendingToken: pending.reveal(),
    methods: pending.methods,
    expiresAt: pending.expiresAt.toISOString(),
  }
}

function path(value: string, name: string): string {
  if (value !== '' && (!value.startsWith('/') || value.endsWith('/'))) {
    throw new ConfigurationError('local.invalid_config', `${name} must start with "/" and not end with "/"`)
  }
  return value
}

/**
 * The generated routes under `{base}/auth/` for the service's profile: `register`, `login` (session),
 * `logout`, `token`, `token/refresh`, `token/revoke` (tokens), `sessions` and `sessions/:id` (session),
 * `password/change`, `csrf` (session), and the JWKS document (tokens). Every answer is `no-store`
 * (the JWKS document is public and cacheable); errors are problem+json with stable codes.
 */
export function localAccountRoutes(options: LocalAccountRoutesOptions): LocalAccountRoutes {
  readOptions(options, 'localAccountRoutes', OPTIONS)
  const { local, onError } = options
  const base = path(options.base ?? '', 'base')
  const limit = options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES
  const sessions = local.sessionMechanismName !== undefined
  const tokens = local.bearerMechanismName !== undefined
  const names = local.mechanisms.map((mechanism) => mechanism.name)
  const signedIn = anyOf(...(names as [string, ...string[]]))
  const router: SecureRouter = options.security.router({ prefix: `${base}/auth` })
  const routers: SecureRouter[] = [router]
  const handle = (handler: (request: Request, response: Response) => Promise<void>) =>
    noStore(handler, onError)
  const body = (request: Request) => readRequestBody(request, limit)
  const credentialsOf = (request: Request) => local.credentialsOf(securityOf(request).evidence)
  const setSession = (response: Response, signIn: SessionSignIn) =>
    response.append('Set-Cookie', signIn.setCookie)
  const clearSession = (response: Response) => {
    if (local.sessionCookie !== undefined)
      response.append('Set-Cookie', clearSessionCookie(local.sessionCookie))
  }

  /** The CSRF check of a request, anchored on its session cookie or pre-session seed. */
  const csrfDecision = (request: Request, anchor: string | undefined, accountId?: string) =>
    local.csrf.check({
      method: request.method,
      secFetchSite: singleHeader(request, 'sec-fetch-site'),
      origin: singleHeader(request, 'origin'),
      presentedToken: singleHeader(request, local.csrf.header),
      sessionId: anchor,
      accountId,
      clientAddress: clientAddressOf(local, request),
    })

  router.post(
    '/register',
    { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.register },
    handle(async (request, response) => {
      const created = await local.register(await body(request), requestInfo(request))
      response.status(201).json(created)
    }),
  )

  if (sessions) {
    router.post(
      '/login',
      { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.login },
      handle(async (request, response) => {
        const cookies = request.headers.cookie
        // Signing in creates cookie state: the request must pass CSRF like any cookie-authenticated one.
        if (!csrfDecision(request, local.csrf.anchorFrom(cookies)).ok)
          return sendProblem(response, CSRF_REFUSED)
        const signIn = await local.login(await body(request), {
          transport: 'session',
          replacesSessionId: local.csrf.sessionIdFrom(cookies),
          request: requestInfo(request),
        })
        if (signIn instanceof PendingSecondFactor) {
          response.status(202).json(pendingBody(signIn))
          return
        }
        setSession(response, signIn as SessionSignIn)
        response.json(sessionBody(signIn as SessionSignIn))
      }),
    )
    router.post(
      '/login/second-factor',
      { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.loginSecondFactor },
      handle(async (request, response) => {
        const cookies = request.headers.cookie
        if (!csrfDecision(request, local.csrf.anchorFrom(cookies)).ok)
          return sendProblem(response, CSRF_REFUSED)
        const signIn = (await local.completeSecondFactor(await body(request), {
          transport: 'session',
          replacesSessionId: local.csrf.sessionIdFrom(cookies),
          request: requestInfo(request),
        })) as SessionSignIn
        setSession(response, signIn)
        response.json(sessionBody(signIn))
      }),
    )
    router.get(
      '/csrf',
      { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.csrf },
      handle(async (request, response) => {
        const anchor = local.csrf.anchorFrom(request.headers.cookie)
        if (anchor !== undefined) {
          response.json({ csrfToken: local.csrf.token(anchor) })
          return
        }
        const seed = local.csrf.newSeed()
        response.append('Set-Cookie', seed.setCookie)
        response.json({ csrfToken: seed.csrfToken })
      }),
    )
    router.get(
      '/sessions',
      { auth: signedIn, openapi: LOCAL_ROUTE_DOCS.sessions },
      handle(async (request, response) => {
        const principal = requirePrincipal(request)
        const views = await local.listSessions(principal.id, credentialsOf(request).sessionHandle)
        response.json({ sessions: views })
      }),
    )
    router.delete(
      '/sessions/:id',
      { auth: signedIn, openapi: LOCAL_ROUTE_DOCS.revokeSession },
      handle(async (request, response) => {
        const principal = requirePrincipal(request)
        const handleId = String(request.params.id)
        if (!(await local.revokeSession(principal.id, handleId, requestInfo(request)))) {
          throw new HttpProblem({ status: 404, code: 'local.session_not_found', detail: 'No such session' })
        }
        if (credentialsOf(request).sessionHandle === handleId) clearSession(response)
        response.status(204).end()
      }),
    )
  }

  router.post(
    '/logout',
    { auth: signedIn, openapi: LOCAL_ROUTE_DOCS.logout },
    handle(async (request, response) => {
      const principal = requirePrincipal(request)
      const credentials = credentialsOf(request)
      await local.logout({
        accountId: principal.id,
        body: await body(request),
        credentials,
        request: requestInfo(request),
      })
      if (credentials.sessionHandle !== undefined) clearSession(response)
      response.status(204).end()
    }),
  )

  router.post(
    '/password/change',
    { auth: signedIn, openapi: LOCAL_ROUTE_DOCS.passwordChange },
    handle(async (request, response) => {
      const principal = requirePrincipal(request)
      const changed = await local.changePassword({
        accountId: principal.id,
        body: await body(request),
        credentials: credentialsOf(request),
        request: requestInfo(request),
      })
      if (changed.session !== undefined) setSession(response, changed.session)
      response.json({
        ...(changed.session === undefined ? {} : sessionBody(changed.session)),
        ...(changed.tokens === undefined ? {} : { tokens: tokenBody(changed.tokens) }),
      })
    }),
  )

  if (tokens) {
    router.post(
      '/token',
      { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.token },
      handle(async (request, response) => {
        const pair = await local.login(await body(request), {
          transport: 'tokens',
          request: requestInfo(request),
        })
        if (pair instanceof PendingSecondFactor) {
          response.status(202).json(pendingBody(pair))
          return
        }
        response.json(tokenBody(pair as TokenSignIn))
      }),
    )
    router.post(
      '/token/second-factor',
      { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.tokenSecondFactor },
      handle(async (request, response) => {
        const pair = (await local.completeSecondFactor(await body(request), {
          transport: 'tokens',
          request: requestInfo(request),
        })) as TokenSignIn
        response.json(tokenBody(pair))
      }),
    )
    router.post(
      '/token/refresh',
      { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.refresh },
      handle(async (request, response) => {
        response.json(tokenBody(await local.refresh(await body(request), requestInfo(request))))
      }),
    )
    router.post(
      '/token/revoke',
      { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.revoke },
      handle(async (request, response) => {
        await local.revokeToken(await body(request))
        response.status(200).json({})
      }),
    )
    const jwksPath = options.jwksPath ?? `${base}/auth/jwks.json`
    if (jwksPath !== false) {
      const keys = options.security.router()
      routers.push(keys)
      keys.get(
        path(jwksPath, 'jwksPath'),
        { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.jwks },
        (_request, response) => {
          response.setHeader('Cache-Control', 'public, max-age=300')
          response.json(local.jwks())
        },
      )
    }
  }

  // Every unsafe request carrying the session cookie passes the CSRF check before any route runs.
  const guard: RequestHandler = (request, response, next) => {
    if (sessions && !SAFE.has(request.method)) {
      const sessionId = local.csrf.sessionIdFrom(request.headers.cookie)
      if (sessionId !== undefined && !csrfDecision(request, sessionId).ok) {
        sendProblem(response, CSRF_REFUSED)
        return
      }
    }
    let index = 0
    const run = (error?: unknown): void => {
      const current = routers[index]
      index += 1
      if (error !== undefined || current === undefined) next(error)
      else current(request, response, run)
    }
    run()
  }

  return Object.assign(guard, {
    async establishSignIn(
      request: Request,
      response: Response,
      input: { readonly accountId: string; readonly transport?: LocalTransport },
    ) {
      const signIn = await local.establishSignIn({
        accountId: input.accountId,
        ...(input.transport === undefined ? {} : { transport: input.transport }),
        replacesSessionId: local.csrf.sessionIdFrom(request.headers.cookie),
        request: requestInfo(request),
      })
      if (signIn.transport === 'session') setSession(response, signIn)
      return signIn
    },
    async renewSignIn(
      request: Request,
      response: Response,
      change: {
        readonly accountId: string
        readonly securityEpoch: number
        readonly reason: EpochBumpReason
      },
    ) {
      await local.epochMoved({ ...change, clientAddress: clientAddressOf(local, request) })
      const renewed = await local.renewSignIn({
        accountId: change.accountId,
        securityEpoch: change.securityEpoch,
        credentials: credentialsOf(request),
        request: requestInfo(request),
      })
      if (renewed.session !== undefined) setSession(response, renewed.session)
      return renewed
    },
    async rotateSession(request: Request, response: Response) {
      const sessionId = local.csrf.sessionIdFrom(request.headers.cookie)
      if (sessionId === undefined)
        throw new HttpProblem({
          status: 401,
          code: 'authentication.required',
          detail: 'Authentication required',
        })
      const signIn = await local.rotateSession(sessionId, requestInfo(request))
      setSession(response, signIn)
      return signIn
    },
  })
}
