import type { OptionsShape } from '@portcullis/core/errors'
import {
  clearSessionCookie,
  LocalAccounts,
  type LocalCredentials,
  type LocalRequestInfo,
  type SessionSignIn,
  type TokenSignIn,
} from '@portcullis/core/local-accounts'
import { anyOf } from '@portcullis/core/policy'
import { recentActivity, type SecurityLog, type UserAgentDescriber } from '@portcullis/core/security-log'
import {
  authRouteTable,
  type HttpAnswer,
  type HttpExchange,
  type NeutralRoute,
} from '../exchange/exchange.js'
import { localPath, sessionBody, tokenBody } from '../local-accounts/routes.js'
import { HttpProblem, problems } from '../problem/problem.js'
import { describeUserAgent } from '../user-agents/describe.js'
import { ACTIVITY_ROUTE_DOCS } from './openapi.js'
import { activityBody, sessionBodies } from './views.js'

/** What every adapter's activity routes take besides its own `security` and `onError`. */
export interface ActivityRouteTableOptions {
  /** The local sign-ins whose sessions these routes list and end (its routes must be mounted first). */
  readonly local: LocalAccounts
  /** Where the activity is read: `PostgresSecurityLog`, `MemorySecurityLog` (the writer's `log`). */
  readonly securityLog: Pick<SecurityLog, 'listForAccount'>
  /** Names the sessions' devices. Default `describeUserAgent` of `@portcullis/http/user-agents`. */
  readonly describeUserAgent?: UserAgentDescriber
  /** Prefix before `/auth/...`. Default none. */
  readonly base?: string
}

export const ACTIVITY_ROUTE_TABLE_OPTIONS: OptionsShape<ActivityRouteTableOptions> = {
  local: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof LocalAccounts ? undefined : 'must be a LocalAccounts'),
  },
  securityLog: {
    required: true,
    kind: 'object',
    check: (value) =>
      typeof (value as { listForAccount?: unknown }).listForAccount === 'function'
        ? undefined
        : 'must be a SecurityLog (listForAccount)',
  },
  describeUserAgent: { kind: 'function' },
  base: { kind: 'string' },
}

/** Items of an activity page unless the request asks for another number (1-100). */
export const ACTIVITY_PAGE_DEFAULT = 20
const ACTIVITY_PAGE_MAX = 100
const CURSOR_MAX = 128

/** What these routes send on every answer (a person's activity and devices are nobody else's). */
export const ACTIVITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Cache-Control': 'no-store',
})

const invalid = (detail: string) => new HttpProblem({ status: 400, code: 'activity.invalid_input', detail })

/** `limit` and `cursor` of the activity route's query; anything else in it is ignored. */
function pageQuery(query: string): { readonly limit: number; readonly cursor?: string } {
  const parameters = new URLSearchParams(query)
  const limits = parameters.getAll('limit')
  const cursors = parameters.getAll('cursor')
  if (limits.length > 1 || cursors.length > 1) throw invalid('limit and cursor may be given once each')
  const text = limits[0]
  const limit = text === undefined ? ACTIVITY_PAGE_DEFAULT : /^[0-9]{1,3}$/.test(text) ? Number(text) : 0
  if (limit < 1 || limit > ACTIVITY_PAGE_MAX) throw invalid(`limit must be an integer 1-${ACTIVITY_PAGE_MAX}`)
  const cursor = cursors[0]
  if (cursor === undefined) return { limit }
  if (cursor === '' || cursor.length > CURSOR_MAX) throw invalid('the cursor is malformed')
  return { limit, cursor }
}

/**
 * Signs out every other session of the account: the security epoch moves (every session, refresh token
 * family and access token of the account is refused on every instance), then the caller gets a fresh
 * session (when it came with one) and token pair (when it came with a local access token). From an
 * impersonation (`request.impersonator`), the events name the administrator, and nothing is renewed: the
 * impersonation ends with the epoch instead of becoming a session of the account.
 */
export async function signOutOtherSessions(
  local: LocalAccounts,
  request: {
    readonly accountId: string
    readonly credentials: LocalCredentials
    readonly request?: LocalRequestInfo
  },
): Promise<{ readonly session?: SessionSignIn; readonly tokens?: TokenSignIn }> {
  const info = request.request ?? {}
  const epoch = await local.signOutEverywhere(
    request.accountId,
    'sign_out_everywhere',
    local.clientAddress(info),
    info.impersonator,
  )
  if (epoch === null) throw new HttpProblem(problems.authenticationRequired)
  if (info.impersonator !== undefined) return {}
  return local.renewSignIn({
    accountId: request.accountId,
    securityEpoch: epoch,
    credentials: request.credentials,
    request: info,
  })
}

const answer = (json: unknown, setCookies: readonly string[] = []): HttpAnswer => ({
  status: 200,
  headers: ACTIVITY_HEADERS,
  json,
  setCookies,
})

/**
 * What a person sees of their own account, under `{base}/auth/`, as a framework-neutral route table:
 *
 * | Route | Does |
 * | --- | --- |
 * | `GET activity?limit=&cursor=` | recent activity, newest first (sign-ins, failures, changes, ...) |
 * | `GET activity/sessions` | the signed-in sessions: device, "this device", last seen, created |
 * | `POST activity/sessions/{id}/sign-out` | ends one of them (404 for an id that is not the caller's) |
 * | `POST activity/sessions/sign-out-others` | ends every other session and token of the account |
 *
 * Every answer is `no-store`; errors are problem+json (`activity.invalid_input`,
 * `activity.session_not_found`, `security_log.invalid_cursor`, 503 with `Retry-After` when a store is
 * down). Mount after the local-account routes: their CSRF check runs in front of the two POSTs.
 */
export function activityRouteTable(options: ActivityRouteTableOptions): NeutralRoute[] {
  const { local, securityLog } = options
  const describe = options.describeUserAgent ?? describeUserAgent
  const base = localPath(options.base ?? '', 'base')
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const auth = anyOf(...names)
  const { routes, add } = authRouteTable(base)
  const accountOf = (exchange: HttpExchange): string => {
    const principal = exchange.security.principal
    if (principal === null || principal.kind !== 'user')
      throw new HttpProblem(problems.authenticationRequired)
    return principal.id
  }
  const credentialsOf = (exchange: HttpExchange) => local.credentialsOf(exchange.security.evidence)

  add('GET', '/activity', { auth, openapi: ACTIVITY_ROUTE_DOCS.activity }, async (exchange) => {
    const accountId = accountOf(exchange)
    const page = await recentActivity(securityLog, { accountId, ...pageQuery(exchange.query) })
    return answer({ items: page.items.map(activityBody), nextCursor: page.nextCursor })
  })

  add('GET', '/activity/sessions', { auth, openapi: ACTIVITY_ROUTE_DOCS.sessions }, async (exchange) => {
    const views = await local.listSessions(accountOf(exchange), credentialsOf(exchange).sessionHandle)
    return answer({ sessions: sessionBodies(views, describe) })
  })

  add(
    'POST',
    '/activity/sessions/sign-out-others',
    { auth, openapi: ACTIVITY_ROUTE_DOCS.signOutOthers },
    async (exchange) => {
      const renewed = await signOutOtherSessions(local, {
        accountId: accountOf(exchange),
        credentials: credentialsOf(exchange),
        request: { ...exchange.requestInfo, impersonator: exchange.security.principal?.impersonator },
      })
      return answer(
        {
          ...(renewed.session === undefined ? {} : sessionBody(renewed.session)),
          ...(renewed.tokens === undefined ? {} : { tokens: tokenBody(renewed.tokens) }),
        },
        renewed.session === undefined ? [] : [renewed.session.setCookie],
      )
    },
  )

  add(
    'POST',
    '/activity/sessions/:id/sign-out',
    { auth, openapi: ACTIVITY_ROUTE_DOCS.signOut },
    async (exchange) => {
      const accountId = accountOf(exchange)
      const id = String(exchange.params.id)
      // A malformed id, an unknown one and another account's all answer the same.
      const info = { ...exchange.requestInfo, impersonator: exchange.security.principal?.impersonator }
      if (!(await local.revokeSession(accountId, id, info))) {
        throw new HttpProblem({ status: 404, code: 'activity.session_not_found', detail: 'No such session' })
      }
      const current = credentialsOf(exchange).sessionHandle === id
      const cleared =
        current && local.sessionCookie !== undefined ? [clearSessionCookie(local.sessionCookie)] : []
      return answer({ signedOut: true, current }, cleared)
    },
  )
  return routes
}
