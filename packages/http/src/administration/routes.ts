import {
  AccountAdministration,
  ADMINISTRATION_STEP_UP_PURPOSE,
  AdministrationErrorCodes,
  type AdministrativeChange,
  type AdministrativeOutcome,
  type AdministratorRule,
  administratorGuard,
  administratorRule,
} from '@portcullis/core/administration'
import { integerBetween, isPortcullisError, type OptionsShape } from '@portcullis/core/errors'
import { LocalAccounts } from '@portcullis/core/local-accounts'
import { anyOf } from '@portcullis/core/policy'
import { fieldsOf, localPath } from '../accounts/bodies.js'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '../body/body.js'
import {
  authRouteTable,
  type HttpAnswer,
  type HttpExchange,
  jsonAnswer,
  type NeutralRoute,
  seeOther,
} from '../exchange/exchange.js'
import { stepUpTokenOf } from '../oauth/http.js'
import type { StepUpTransport } from '../oauth/options.js'
import { requireLocalSession } from '../oauth/session.js'
import { HttpProblem, problems } from '../problem/problem.js'
import type { OperationDocumentation } from '../routing/route-options.js'
import type { HttpMethod } from '../routing/route-registry.js'
import { accountViewBody, outcomeBody, searchHitBody } from './bodies.js'
import { ADMINISTRATION_ROUTE_DOCS as DOCS } from './openapi.js'

/** What every adapter's administration routes take besides its own `security` and `onError`. */
export interface AdministrationRouteTableOptions {
  /** The operations (`new AccountAdministration({ accounts, local, stepUp, log, ... })`). */
  readonly administration: AccountAdministration
  /** The local sign-ins of the same accounts: its mechanisms authenticate the administrators. */
  readonly local: LocalAccounts
  /** Who may call these routes: a role or a capability of the snapshot. Default `{ role: 'admin' }`. */
  readonly administrators?: AdministratorRule
  /** Prefix before `/auth/...`. Default none. */
  readonly base?: string
  /** Largest accepted request body. Default 16 KiB. */
  readonly maxBodyBytes?: number
}

export const ADMINISTRATION_ROUTE_TABLE_OPTIONS: OptionsShape<AdministrationRouteTableOptions> = {
  administration: {
    required: true,
    kind: 'object',
    check: (value) =>
      value instanceof AccountAdministration ? undefined : 'must be an AccountAdministration',
  },
  local: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof LocalAccounts ? undefined : 'must be a LocalAccounts'),
  },
  administrators: { kind: 'object' },
  base: { kind: 'string' },
  maxBodyBytes: { kind: 'number', check: integerBetween(64, 1024 * 1024) },
}

/** Typed refusals as problems: an unknown target is 404 (no error class says "not found"). */
function administrationProblem(error: unknown): unknown {
  if (isPortcullisError(error) && error.code === AdministrationErrorCodes.notFound) {
    return new HttpProblem({ status: 404, code: error.code, detail: 'No such account, key or grant' })
  }
  return error
}

/**
 * The administration routes under `{base}/auth/admin/`, as a framework-neutral route table. Every
 * route needs a local session (or token) of an administrator: the configured role or capability of the
 * authorization snapshot (`administratorGuard`), else 403. Every change consumes a one-use step-up
 * credential of purpose `administration` (`POST {base}/auth/step-up/administration`, the header or the
 * purpose's cookie) and takes a `reason`:
 *
 * | Route | Does |
 * | --- | --- |
 * | `GET admin/accounts?by=&q=&limit=` | search by `id`, `username`, `email` or `prefix` |
 * | `GET admin/accounts/{accountId}` | the account, its methods, factors, sessions, keys, grants, events |
 * | `POST admin/accounts/{accountId}/disable` | disables it (every instance refuses its credentials) |
 * | `POST admin/accounts/{accountId}/enable` | enables it again |
 * | `POST admin/accounts/{accountId}/sign-out` | ends every session and token family |
 * | `POST admin/accounts/{accountId}/api-keys/{keyId}/revoke` | revokes one of its API keys |
 * | `POST admin/accounts/{accountId}/grants/{grantId}/revoke` | revokes one of its grants |
 * | `POST admin/accounts/{accountId}/password-reset` | signs it out, sends the reset mail |
 * | `POST admin/accounts/{accountId}/delete` | deletes it |
 *
 * A browser form may add `return_to` (a local path) and gets a 303 there. Answers are
 * `Cache-Control: no-store`; errors are problem+json (`administration.*`, `step-up.required`).
 */
export function administrationRouteTable(
  options: AdministrationRouteTableOptions,
  stepUp: StepUpTransport,
): NeutralRoute[] {
  const { administration, local } = options
  const limit = options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const routeOptions = {
    auth: anyOf(...names),
    guards: [administratorGuard(administratorRule(options.administrators))],
  }
  const table = authRouteTable(options.base ?? '')
  const add = (
    method: HttpMethod,
    path: string,
    openapi: OperationDocumentation,
    handle: (exchange: HttpExchange) => Promise<HttpAnswer>,
  ) =>
    table.add(method, `/admin/accounts${path}`, { ...routeOptions, openapi }, async (exchange) => {
      try {
        return await handle(exchange)
      } catch (error) {
        throw administrationProblem(error)
      }
    })

  add('GET', '', DOCS.search, async (exchange) => {
    requireLocalSession(exchange.security)
    const query = new URLSearchParams(exchange.query)
    const by = query.get('by') ?? 'prefix'
    const value = query.get('q') ?? ''
    const count = query.get('limit')
    const limitOf = count === null ? undefined : /^[0-9]{1,3}$/.test(count) ? Number(count) : Number.NaN
    const hits = await administration.search({
      by: by as 'prefix',
      value,
      ...(limitOf === undefined ? {} : { limit: limitOf }),
    })
    return jsonAnswer({ hits: hits.map(searchHitBody) })
  })

  add('GET', '/:accountId', DOCS.view, async (exchange) => {
    requireLocalSession(exchange.security)
    const view = await administration.view(String(exchange.params.accountId))
    if (view === null) throw new HttpProblem({ status: 404, code: AdministrationErrorCodes.notFound })
    return jsonAnswer(accountViewBody(view))
  })

  /** A change: the reason (and a browser's `return_to`) from the body, the credential, the outcome. */
  const act = (
    path: string,
    openapi: OperationDocumentation,
    run: (
      change: AdministrativeChange,
      params: Readonly<Record<string, string>>,
    ) => Promise<AdministrativeOutcome>,
  ) =>
    add('POST', path, openapi, async (exchange) => {
      const administrator = requireLocalSession(exchange.security)
      const fields = fieldsOf(await exchange.body(limit), ['reason'], ['return_to'])
      const returnTo = fields.return_to === undefined ? undefined : localPath(fields.return_to)
      if (fields.return_to !== undefined && returnTo === undefined)
        throw new HttpProblem(problems.invalidRequest)
      const outcome = await run(
        {
          administrator,
          stepUpToken: stepUpTokenOf(exchange, stepUp, ADMINISTRATION_STEP_UP_PURPOSE),
          accountId: String(exchange.params.accountId),
          reason: fields.reason,
          request: exchange.requestInfo,
        },
        exchange.params,
      )
      if (returnTo !== undefined && !exchange.wantsJson) return seeOther(returnTo)
      return jsonAnswer(outcomeBody(outcome))
    })

  act('/:accountId/disable', DOCS.disable, (change) => administration.disable(change))
  act('/:accountId/enable', DOCS.enable, (change) => administration.enable(change))
  act('/:accountId/sign-out', DOCS.signOut, (change) => administration.signOutEverywhere(change))
  act('/:accountId/api-keys/:keyId/revoke', DOCS.revokeApiKey, (change, params) =>
    administration.revokeApiKey({ ...change, keyId: String(params.keyId) }),
  )
  act('/:accountId/grants/:grantId/revoke', DOCS.revokeGrant, (change, params) =>
    administration.revokeGrant({ ...change, grantId: String(params.grantId) }),
  )
  act('/:accountId/password-reset', DOCS.passwordReset, (change) =>
    administration.requirePasswordReset(change),
  )
  act('/:accountId/delete', DOCS.delete, (change) => administration.deleteAccount(change))
  return table.routes
}
