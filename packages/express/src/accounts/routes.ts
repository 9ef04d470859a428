import { ACCOUNT_STEP_UP_PURPOSES, type AccountService } from '@portcullis/core/accounts'
import { integerBetween, type OptionsShape, readOptions } from '@portcullis/core/errors'
import { clearSessionCookie, LocalAccounts } from '@portcullis/core/local-accounts'
import { anyOf } from '@portcullis/core/policy'
import type { Request, Response } from 'express'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES, readRequestBody } from '../local-accounts/body.js'
import { noStore, requestInfo } from '../local-accounts/respond.js'
import { seeOther, stepUpTokenOf, wantsJson } from '../oauth/http.js'
import { localSessionOf } from '../oauth/session.js'
import { HttpProblem, problems } from '../problem/problem.js'
import type { SecureRouter } from '../routing/secure-router.js'
import type { Security } from '../security/create-security.js'
import { securityOf } from '../security/request-context.js'
import { fieldsOf, localPath, methodBody } from './bodies.js'
import { ACCOUNT_ROUTE_DOCS } from './openapi.js'

export interface AccountRoutesOptions {
  /** The account operations (`new AccountService({ accounts, local, stepUp, providerTokens })`). */
  readonly service: AccountService
  /** The local sign-ins of the same accounts: its mechanisms authenticate these routes. */
  readonly local: LocalAccounts
  /** The routes are registered on its routers: route policy, OpenAPI entries, problem+json. */
  readonly security: Pick<Security, 'router' | 'stepUp'>
  /** Prefix before `/auth/...`. Default none. */
  readonly base?: string
  /** Largest accepted request body. Default 16 KiB. */
  readonly maxBodyBytes?: number
  /** Where a browser goes once its account is deleted. Default `/`. */
  readonly afterDeletion?: string
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: Request) => void
}

const LOCAL_PATH = (value: unknown) => (localPath(value) === undefined ? 'must be a local path' : undefined)

const OPTIONS: OptionsShape<AccountRoutesOptions> = {
  service: { required: true, kind: 'object' },
  local: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof LocalAccounts ? undefined : 'must be a LocalAccounts'),
  },
  security: { required: true, kind: 'object' },
  base: { kind: 'string' },
  maxBodyBytes: { kind: 'number', check: integerBetween(64, 1024 * 1024) },
  afterDeletion: { kind: 'string', check: LOCAL_PATH },
  onError: { kind: 'function' },
}

/**
 * The account routes under `{base}/auth/`, for a signed-in caller of the local mechanisms:
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
export function createAccountRoutes(options: AccountRoutesOptions): SecureRouter {
  readOptions(options, 'createAccountRoutes', OPTIONS)
  const { service, local, security, onError } = options
  const base = options.base ?? ''
  const limit = options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const auth = anyOf(...names)
  const router = security.router({ prefix: `${base}/auth` })
  const handle = (handler: (request: Request, response: Response) => Promise<void>) =>
    noStore(handler, onError)
  const sessionOf = (request: Request) => {
    const session = localSessionOf(securityOf(request))
    if (session === undefined) throw new HttpProblem(problems.authenticationRequired)
    return session
  }
  const tokenFor = (request: Request, response: Response, purpose: string) =>
    stepUpTokenOf(request, response, security.stepUp, purpose)

  router.get(
    '/account',
    { auth, openapi: ACCOUNT_ROUTE_DOCS.account },
    handle(async (request, response) => {
      const session = sessionOf(request)
      const overview = await service.overview(session.accountId)
      if (overview === null) throw new HttpProblem(problems.authenticationRequired)
      response.json({
        accountId: overview.account.accountId,
        status: overview.account.status,
        createdAt: overview.account.createdAt.toISOString(),
        methods: overview.methods.map(methodBody),
      })
    }),
  )

  router.post(
    '/step-up/:purpose',
    { auth, openapi: ACCOUNT_ROUTE_DOCS.stepUp },
    handle(async (request, response) => {
      const session = sessionOf(request)
      const fields = fieldsOf(await readRequestBody(request, limit), ['password'], ['return_to'])
      const returnTo = fields.return_to === undefined ? '/' : localPath(fields.return_to)
      if (returnTo === undefined) throw new HttpProblem(problems.invalidRequest)
      const credential = await service.passwordStepUp({
        session,
        purpose: String(request.params.purpose),
        password: fields.password,
        request: requestInfo(request),
      })
      const cookies = security.stepUp.cookies
      if (wantsJson(request) || cookies === undefined) {
        response.json({
          purpose: credential.purpose,
          stepUpToken: credential.reveal(),
          expiresAt: credential.expiresAt.toISOString(),
        })
        return
      }
      response.append(
        'Set-Cookie',
        cookies.serialize(credential.purpose, credential.reveal(), credential.expiresAt),
      )
      seeOther(response, returnTo)
    }),
  )

  router.post(
    '/password',
    { auth, openapi: ACCOUNT_ROUTE_DOCS.addPassword },
    handle(async (request, response) => {
      const session = sessionOf(request)
      const fields = fieldsOf(await readRequestBody(request, limit), ['username', 'password'], [])
      const added = await service.addPassword({
        session,
        stepUpToken: tokenFor(request, response, ACCOUNT_STEP_UP_PURPOSES.addPassword),
        username: fields.username,
        password: fields.password,
        request: requestInfo(request),
      })
      response.status(201).json(methodBody(added))
    }),
  )

  router.post(
    '/password/remove',
    { auth, openapi: ACCOUNT_ROUTE_DOCS.removePassword },
    handle(async (request, response) => {
      const session = sessionOf(request)
      const renewed = await service.removePassword({
        session,
        stepUpToken: tokenFor(request, response, ACCOUNT_STEP_UP_PURPOSES.removePassword),
        credentials: local.credentialsOf(securityOf(request).evidence),
        request: requestInfo(request),
      })
      if (renewed.session !== undefined) response.append('Set-Cookie', renewed.session.setCookie)
      response.json({
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
      })
    }),
  )

  router.post(
    '/account/delete',
    { auth, openapi: ACCOUNT_ROUTE_DOCS.deleteAccount },
    handle(async (request, response) => {
      const session = sessionOf(request)
      await service.deleteAccount({
        session,
        stepUpToken: tokenFor(request, response, ACCOUNT_STEP_UP_PURPOSES.deleteAccount),
        request: requestInfo(request),
      })
      if (local.sessionCookie !== undefined)
        response.append('Set-Cookie', clearSessionCookie(local.sessionCookie))
      if (wantsJson(request)) {
        response.status(204).end()
        return
      }
      seeOther(response, options.afterDeletion ?? '/')
    }),
  )

  return router
}
