import { ConfigurationError, integerBetween, type OptionsShape } from '@portcullis/core/errors'
import {
  clearSessionCookie,
  LocalAccounts,
  PendingSecondFactor,
  type SessionSignIn,
  type TokenSignIn,
} from '@portcullis/core/local-accounts'
import { anonymous, anyOf } from '@portcullis/core/policy'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '../body/body.js'
import {
  authRouteTable,
  type HttpAnswer,
  type HttpExchange,
  jsonAnswer,
  type NeutralRoute,
  problemAnswer,
} from '../exchange/exchange.js'
import { HttpProblem, problems } from '../problem/problem.js'
import { localCsrf } from './csrf.js'
import { LOCAL_ROUTE_DOCS } from './openapi.js'

/** What every adapter's local-account routes take besides its own `security` and `onError`. */
export interface LocalRouteTableOptions {
  /** The service (`new LocalAccounts({ profile, ... })`); its `mechanisms` must be registered with security. */
  readonly local: LocalAccounts
  /** Prefix before `/auth/...`. Default none (`/auth/login`). */
  readonly base?: string
  /** Largest accepted request body. Default 16 KiB; at most 1 MiB. */
  readonly maxBodyBytes?: number
  /** Where the JWKS document is served (tokens and hybrid profiles). Default `{base}/auth/jwks.json`; `false`: not served. */
  readonly jwksPath?: string | false
}

export const LOCAL_ROUTE_TABLE_OPTIONS: OptionsShape<LocalRouteTableOptions> = {
  local: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof LocalAccounts ? undefined : 'must be a LocalAccounts'),
  },
  base: { kind: 'string' },
  maxBodyBytes: { kind: 'number', check: integerBetween(64, 1024 * 1024) },
  jwksPath: { kind: ['string', 'false'] },
}

export function tokenBody(pair: TokenSignIn) {
  return {
    access_token: pair.access_token,
    refresh_token: pair.refresh_token,
    token_type: pair.token_type,
    expires_in: pair.expires_in,
  }
}

export function sessionBody(signIn: SessionSignIn) {
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

export function localPath(value: string, name: string): string {
  if (value !== '' && (!value.startsWith('/') || value.endsWith('/'))) {
    throw new ConfigurationError('local.invalid_config', `${name} must start with "/" and not end with "/"`)
  }
  return value
}

const noContent: HttpAnswer = { status: 204 }

/**
 * The generated routes under `{base}/auth/` for the service's profile, as a framework-neutral route
 * table: `register`, `login` and `login/second-factor` (session), `logout`, `token`, `token/second-factor`,
 * `token/refresh`, `token/revoke` (tokens),
 * `sessions` and `sessions/:id` (session), `password/change`, `csrf` (session), and the JWKS document
 * (tokens). Every answer is `no-store` (the JWKS document is public and cacheable); errors are
 * problem+json with stable codes (a typed local-account error keeps its client-safe detail).
 */
export function localRouteTable(options: LocalRouteTableOptions): NeutralRoute[] {
  const { local } = options
  const base = localPath(options.base ?? '', 'base')
  const limit = options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES
  const sessions = local.sessionMechanismName !== undefined
  const tokens = local.bearerMechanismName !== undefined
  const names = local.mechanisms.map((mechanism) => mechanism.name)
  const signedIn = anyOf(...(names as [string, ...string[]]))
  const csrf = localCsrf(local)
  const { routes, add } = authRouteTable(base)
  const credentialsOf = (exchange: HttpExchange) => local.credentialsOf(exchange.security.evidence)
  const principalOf = (exchange: HttpExchange) => {
    const principal = exchange.security.principal
    if (principal === null) throw new HttpProblem(problems.authenticationRequired)
    return principal
  }
  const clearSession = (): string[] =>
    local.sessionCookie === undefined ? [] : [clearSessionCookie(local.sessionCookie)]

  add('POST', '/register', { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.register }, async (exchange) => {
    const created = await local.register(await exchange.body(limit), exchange.requestInfo)
    return jsonAnswer(created, 201)
  })

  if (sessions) {
    add('POST', '/login', { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.login }, async (exchange) => {
      const cookies = exchange.cookieHeader
      // Signing in creates cookie state: the request must pass CSRF like any cookie-authenticated one.
      if (!csrf.decide(exchange, local.csrf.anchorFrom(cookies)).ok) return problemAnswer(csrf.refused)
      const signIn = await local.login(await exchange.body(limit), {
        transport: 'session',
        replacesSessionId: local.csrf.sessionIdFrom(cookies),
        request: exchange.requestInfo,
      })
      if (signIn instanceof PendingSecondFactor) return jsonAnswer(pendingBody(signIn), 202)
      const session = signIn as SessionSignIn
      return jsonAnswer(sessionBody(session), 200, [session.setCookie])
    })
    add(
      'POST',
      '/login/second-factor',
      { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.loginSecondFactor },
      async (exchange) => {
        const cookies = exchange.cookieHeader
        // Finishing a sign-in creates cookie state: CSRF-checked exactly like /login.
        if (!csrf.decide(exchange, local.csrf.anchorFrom(cookies)).ok) return problemAnswer(csrf.refused)
        const signIn = (await local.completeSecondFactor(await exchange.body(limit), {
          transport: 'session',
          replacesSessionId: local.csrf.sessionIdFrom(cookies),
          request: exchange.requestInfo,
        })) as SessionSignIn
        return jsonAnswer(sessionBody(signIn), 200, [signIn.setCookie])
      },
    )
    add('GET', '/csrf', { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.csrf }, async (exchange) => {
      const anchor = local.csrf.anchorFrom(exchange.cookieHeader)
      if (anchor !== undefined) return jsonAnswer({ csrfToken: local.csrf.token(anchor) })
      const seed = local.csrf.newSeed()
      return jsonAnswer({ csrfToken: seed.csrfToken }, 200, [seed.setCookie])
    })
    add('GET', '/sessions', { auth: signedIn, openapi: LOCAL_ROUTE_DOCS.sessions }, async (exchange) => {
      const principal = principalOf(exchange)
      const views = await local.listSessions(principal.id, credentialsOf(exchange).sessionHandle)
      return jsonAnswer({ sessions: views })
    })
    add(
      'DELETE',
      '/sessions/:id',
      { auth: signedIn, openapi: LOCAL_ROUTE_DOCS.revokeSession },
      async (exchange) => {
        const principal = principalOf(exchange)
        const handleId = String(exchange.params.id)
        const info = { ...exchange.requestInfo, impersonator: principal.impersonator }
        if (!(await local.revokeSession(principal.id, handleId, info))) {
          throw new HttpProblem({ status: 404, code: 'local.session_not_found', detail: 'No such session' })
        }
        const mine = credentialsOf(exchange).sessionHandle === handleId
        return { ...noContent, setCookies: mine ? clearSession() : [] }
      },
    )
  }

  add('POST', '/logout', { auth: signedIn, openapi: LOCAL_ROUTE_DOCS.logout }, async (exchange) => {
    const principal = principalOf(exchange)
    const credentials = credentialsOf(exchange)
    await local.logout({
      accountId: principal.id,
      body: await exchange.body(limit),
      credentials,
      request: { ...exchange.requestInfo, impersonator: principal.impersonator },
    })
    return { ...noContent, setCookies: credentials.sessionHandle === undefined ? [] : clearSession() }
  })

  add(
    'POST',
    '/password/change',
    { auth: signedIn, openapi: LOCAL_ROUTE_DOCS.passwordChange },
    async (exchange) => {
      const principal = principalOf(exchange)
      const changed = await local.changePassword({
        accountId: principal.id,
        body: await exchange.body(limit),
        credentials: credentialsOf(exchange),
        request: exchange.requestInfo,
      })
      const body = {
        ...(changed.session === undefined ? {} : sessionBody(changed.session)),
        ...(changed.tokens === undefined ? {} : { tokens: tokenBody(changed.tokens) }),
      }
      return jsonAnswer(body, 200, changed.session === undefined ? [] : [changed.session.setCookie])
    },
  )

  if (tokens) {
    add('POST', '/token', { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.token }, async (exchange) => {
      const pair = await local.login(await exchange.body(limit), {
        transport: 'tokens',
        request: exchange.requestInfo,
      })
      if (pair instanceof PendingSecondFactor) return jsonAnswer(pendingBody(pair), 202)
      return jsonAnswer(tokenBody(pair as TokenSignIn))
    })
    add(
      'POST',
      '/token/second-factor',
      { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.tokenSecondFactor },
      async (exchange) => {
        const pair = (await local.completeSecondFactor(await exchange.body(limit), {
          transport: 'tokens',
          request: exchange.requestInfo,
        })) as TokenSignIn
        return jsonAnswer(tokenBody(pair))
      },
    )
    add(
      'POST',
      '/token/refresh',
      { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.refresh },
      async (exchange) =>
        jsonAnswer(tokenBody(await local.refresh(await exchange.body(limit), exchange.requestInfo))),
    )
    add(
      'POST',
      '/token/revoke',
      { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.revoke },
      async (exchange) => {
        await local.revokeToken(await exchange.body(limit))
        return jsonAnswer({})
      },
    )
    const jwksPath = options.jwksPath ?? `${base}/auth/jwks.json`
    if (jwksPath !== false) {
      routes.push({
        method: 'GET',
        path: localPath(jwksPath, 'jwksPath'),
        options: { auth: anonymous(), openapi: LOCAL_ROUTE_DOCS.jwks },
        errors: 'local',
        handle: async () => ({
          status: 200,
          headers: { 'Cache-Control': 'public, max-age=300' },
          json: local.jwks(),
        }),
      })
    }
  }
  return routes
}
