import { requiresCapability } from '@portcullis/core/authorization'
import { integerBetween, isPortcullisError, type OptionsShape } from '@portcullis/core/errors'
import { IMPERSONATION_STEP_UP_PURPOSE, Impersonations } from '@portcullis/core/impersonation'
import { LocalAccounts } from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import { fieldsOf, localPath } from '../accounts/bodies.js'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '../body/body.js'
import {
  authRouteTable,
  type HttpExchange,
  jsonAnswer,
  type NeutralRoute,
  seeOther,
} from '../exchange/exchange.js'
import { stepUpTokenOf } from '../oauth/http.js'
import type { StepUpTransport } from '../oauth/options.js'
import { requireLocalSession } from '../oauth/session.js'
import { HttpProblem, problems } from '../problem/problem.js'
import { IMPERSONATION_ROUTE_DOCS } from './openapi.js'

/** What every adapter's impersonation routes take besides its own `security` and `onError`. */
export interface ImpersonationRouteTableOptions {
  /** The impersonation service; its `mechanisms(local.mechanisms)` must be the ones registered with security. */
  readonly impersonations: Impersonations
  /** The local sign-ins of the same accounts. */
  readonly local: LocalAccounts
  /** Prefix before `/auth/...`. Default none. */
  readonly base?: string
  /** Largest accepted request body. Default 16 KiB. */
  readonly maxBodyBytes?: number
}

export const IMPERSONATION_ROUTE_TABLE_OPTIONS: OptionsShape<ImpersonationRouteTableOptions> = {
  impersonations: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof Impersonations ? undefined : 'must be an Impersonations'),
  },
  local: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof LocalAccounts ? undefined : 'must be a LocalAccounts'),
  },
  base: { kind: 'string' },
  maxBodyBytes: { kind: 'number', check: integerBetween(64, 1024 * 1024) },
}

const notFound = new HttpProblem({
  status: 404,
  code: 'impersonation.target_not_found',
  detail: 'No active account with this id',
})

function returnTo(value: string | undefined): string {
  if (value === undefined) return '/'
  const path = localPath(value)
  if (path === undefined) throw new HttpProblem(problems.invalidRequest)
  return path
}

/**
 * The impersonation routes under `{base}/auth/`, for the local session mechanism only (the
 * administrator's session comes back when the impersonation ends):
 *
 * | Route | Guard | Does |
 * | --- | --- | --- |
 * | `POST impersonation` | the capability, step-up `impersonation-start` | starts acting as `accountId`, for `reason` |
 * | `POST impersonation/end` | an impersonation | ends it; the administrator's session comes back |
 * | `GET impersonation` | signed in | whether the request is an impersonation (for a banner) |
 *
 * Every answer is `Cache-Control: no-store`; errors are problem+json with stable codes.
 */
export function impersonationRouteTable(
  options: ImpersonationRouteTableOptions,
  stepUp: StepUpTransport,
): NeutralRoute[] {
  const { impersonations, local } = options
  const base = options.base ?? ''
  const limit = options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES
  const mechanism = local.sessionMechanismName as string
  const auth = required(mechanism)
  const table = authRouteTable(base)
  const sessionOf = (exchange: HttpExchange) => requireLocalSession(exchange.security)

  table.add(
    'POST',
    '/impersonation',
    {
      auth,
      guards: [requiresCapability(impersonations.capability)],
      openapi: IMPERSONATION_ROUTE_DOCS.start,
    },
    async (exchange) => {
      const session = sessionOf(exchange)
      const fields = fieldsOf(await exchange.body(limit), ['accountId', 'reason'], ['return_to'])
      const next = returnTo(fields.return_to)
      const sessionId = local.csrf.sessionIdFrom(exchange.cookieHeader)
      if (sessionId === undefined) throw new HttpProblem(problems.authenticationRequired)
      const started = await impersonations
        .start({
          administrator: { ...session, sessionId },
          snapshot: exchange.security.snapshot,
          impersonator: exchange.security.principal?.impersonator,
          accountId: fields.accountId,
          reason: fields.reason,
          stepUpToken: stepUpTokenOf(exchange, stepUp, IMPERSONATION_STEP_UP_PURPOSE),
          request: exchange.requestInfo,
        })
        .catch((error: unknown) => {
          if (isPortcullisError(error) && error.code === 'impersonation.target_not_found') throw notFound
          throw error
        })
      if (!exchange.wantsJson) return seeOther(next, started.setCookies)
      return jsonAnswer(
        {
          impersonationId: started.impersonationId,
          accountId: started.accountId,
          expiresAt: started.expiresAt.toISOString(),
          csrfToken: started.csrfToken,
        },
        201,
        started.setCookies,
      )
    },
  )

  table.add(
    'POST',
    '/impersonation/end',
    { auth, openapi: IMPERSONATION_ROUTE_DOCS.end },
    async (exchange) => {
      const session = sessionOf(exchange)
      const body = await exchange.body(limit)
      const fields = body === undefined || body === null ? {} : fieldsOf(body, [], ['return_to'])
      const next = returnTo(fields.return_to)
      const ended = await impersonations.end({
        impersonator: exchange.security.principal?.impersonator,
        sessionHandle: session.sessionHandle,
        cookieHeader: exchange.cookieHeader,
        request: exchange.requestInfo,
      })
      if (!exchange.wantsJson) return seeOther(next, ended.setCookies)
      return jsonAnswer(
        { impersonationId: ended.impersonationId, csrfToken: ended.csrfToken },
        200,
        ended.setCookies,
      )
    },
  )

  table.add(
    'GET',
    '/impersonation',
    { auth, openapi: IMPERSONATION_ROUTE_DOCS.current },
    async (exchange) => {
      const session = sessionOf(exchange)
      const impersonator = exchange.security.principal?.impersonator
      return jsonAnswer(
        impersonator === undefined
          ? { impersonating: false, accountId: session.accountId }
          : {
              impersonating: true,
              accountId: session.accountId,
              administratorId: impersonator.accountId,
              impersonationId: impersonator.impersonationId,
            },
      )
    },
  )

  return table.routes
}
