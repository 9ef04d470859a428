import { ACCOUNT_STEP_UP_PURPOSES, type AccountService } from '@portcullis/core/accounts'
import { integerBetween, type OptionsShape } from '@portcullis/core/errors'
import { clearSessionCookie, LocalAccounts } from '@portcullis/core/local-accounts'
import { anyOf } from '@portcullis/core/policy'
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
import { fieldsOf, localPath, methodBody } from './bodies.js'
import { ACCOUNT_ROUTE_DOCS } from './openapi.js'

/** What every adapter's account routes take besides its own `security` and `onError`. */
export interface AccountRouteTableOptions {
  /** The account operations (`new AccountService({ accounts, local, stepUp, providerTokens })`). */
  readonly service: AccountService
  /** The local sign-ins of the same accounts: its mechanisms authenticate these routes. */
  readonly local: LocalAccounts
  /** Prefix before `/auth/...`. Default none. */
  readonly base?: string
  /** Largest accepted request body. Default 16 KiB. */
  readonly maxBodyBytes?: number
  /** Where a browser goes once its account is deleted. Default `/`. */
  readonly afterDeletion?: string
}

const LOCAL_PATH = (value: unknown) => (localPath(value) === undefined ? 'must be a local path' : undefined)

export const ACCOUNT_ROUTE_TABLE_OPTIONS: OptionsShape<AccountRouteTableOptions> = {
  service: { required: true, kind: 'object' },
  local: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof LocalAccounts ? undefined : 'must be a LocalAccounts'),
  },
  base: { kind: 'string' },
  maxBodyBytes: { kind: 'number', check: integerBetween(64, 1024 * 1024) },
  afterDeletion: { kind: 'string', check: LOCAL_PATH },
}

/**
 * The account routes under `{base}/auth/`, for a signed-in caller of the local mechanisms, as a
 * framework-neutral route table:
 *
 * | Route | Step-up | Does |
 * | --- | --- | --- |
 * | `GET account` | - | the account and every sign-in method |
 * | `POST step-up/{purpose}` | - | the password again (rate-limited like sign-in): a one-use credential |
 * | `POST password` | `password-add` | adds a password to a provider-only account |
 * | `POST password/remove` | `password-remove` | removes the password; never the last method (409) |
 * | `POST account/delete` | `delete-account` | deletes the account and everything of it |
 *
 * Step-up credentials come in the step-up header or the purpose's step-up cookie, as for the OAuth
 * routes. Every answer is `Cache-Control: no-store`; errors are problem+json with stable codes.
 */
export function accountRouteTable(
  options: AccountRouteTableOptions,
  stepUp: StepUpTransport,
): NeutralRoute[] {
  const { service, local } = options
  const base = options.base ?? ''
  const limit = options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const auth = anyOf(...names)
  const table = authRouteTable(base)
  const add = (
    method: HttpMethod,
    path: string,
    openapi: OperationDocumentation,
    handle: (exchange: HttpExchange) => Promise<HttpAnswer>,
  ) => table.add(method, path, { auth, openapi }, handle)
  const sessionOf = (exchange: HttpExchange) => requireLocalSession(exchange.security)

  add('GET', '/account', ACCOUNT_ROUTE_DOCS.account, async (exchange) => {
    const session = sessionOf(exchange)
    const overview = await service.overview(session.accountId)
    if (overview === null) throw new HttpProblem(problems.authenticationRequired)
    return jsonAnswer({
      accountId: overview.account.accountId,
      status: overview.account.status,
      createdAt: overview.account.createdAt.toISOString(),
      methods: overview.methods.map(methodBody),
    })
  })

  add('POST', '/step-up/:purpose', ACCOUNT_ROUTE_DOCS.stepUp, async (exchange) => {
    const session = sessionOf(exchange)
    const fields = fieldsOf(await exchange.body(limit), ['password'], ['return_to'])
    const returnTo = fields.return_to === undefined ? '/' : localPath(fields.return_to)
    if (returnTo === undefined) throw new HttpProblem(problems.invalidRequest)
    const credential = await service.passwordStepUp({
      session,
      purpose: String(exchange.params.purpose),
      password: fields.password,
      request: exchange.requestInfo,
    })
    const cookies = stepUp.cookies
    if (exchange.wantsJson || cookies === undefined) {
      return jsonAnswer({
        purpose: credential.purpose,
        stepUpToken: credential.reveal(),
        expiresAt: credential.expiresAt.toISOString(),
      })
    }
    return seeOther(returnTo, [
      cookies.serialize(credential.purpose, credential.reveal(), credential.expiresAt),
    ])
  })

  add('POST', '/password', ACCOUNT_ROUTE_DOCS.addPassword, async (exchange) => {
    const session = sessionOf(exchange)
    const fields = fieldsOf(await exchange.body(limit), ['username', 'password'], [])
    const added = await service.addPassword({
      session,
      stepUpToken: stepUpTokenOf(exchange, stepUp, ACCOUNT_STEP_UP_PURPOSES.addPassword),
      username: fields.username,
      password: fields.password,
      request: exchange.requestInfo,
    })
    return jsonAnswer(methodBody(added), 201)
  })

  add('POST', '/password/remove', ACCOUNT_ROUTE_DOCS.removePassword, async (exchange) => {
    const session = sessionOf(exchange)
    const renewed = await service.removePassword({
      session,
      stepUpToken: stepUpTokenOf(exchange, stepUp, ACCOUNT_STEP_UP_PURPOSES.removePassword),
      credentials: local.credentialsOf(exchange.security.evidence),
      request: exchange.requestInfo,
    })
    const body = {
      status: 'removed',
      ...(renewed.session === undefined
        ? {}
        : { csrfToken: renewed.session.csrfToken, expiresAt: renewed.session.expiresAt.toISOString() }),
      ...(renewed.tokens === undefined
        ? {}
        : {
            tokens: {
              access_token: renewed.tokens.access_token,
              refresh_token: renewed.tokens.refresh_token,
              token_type: renewed.tokens.token_type,
              expires_in: renewed.tokens.expires_in,
            },
          }),
    }
    return jsonAnswer(body, 200, renewed.session === undefined ? [] : [renewed.session.setCookie])
  })

  add('POST', '/account/delete', ACCOUNT_ROUTE_DOCS.deleteAccount, async (exchange) => {
    const session = sessionOf(exchange)
    await service.deleteAccount({
      session,
      stepUpToken: stepUpTokenOf(exchange, stepUp, ACCOUNT_STEP_UP_PURPOSES.deleteAccount),
      request: exchange.requestInfo,
    })
    const cleared = local.sessionCookie === undefined ? [] : [clearSessionCookie(local.sessionCookie)]
    if (exchange.wantsJson) return { status: 204, setCookies: cleared }
    return seeOther(options.afterDeletion ?? '/', cleared)
  })

  return table.routes
}
