import { integerBetween, type OptionsShape, readOptions } from '@portcullis/core/errors'
import { LocalAccounts } from '@portcullis/core/local-accounts'
import type { PasskeyCeremonies, PasskeyStepUp } from '@portcullis/core/passkeys'
import { anyOf } from '@portcullis/core/policy'
import type { StepUpService } from '@portcullis/core/step-up'
import { fieldsOf } from '@portcullis/http/accounts'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '@portcullis/http/body'
import { localProblem } from '@portcullis/http/local-accounts'
import { HttpProblem, type ProblemInit, problems } from '@portcullis/http/problem'
import type { Request, RequestHandler, Response } from 'express'
import { requestInfo } from '../local-accounts/respond.js'
import { localSessionOf } from '../oauth/session.js'
import { sendProblem } from '../problem/send-problem.js'
import { expressExchange } from '../routing/neutral-routes.js'
import type { SecureRouter } from '../routing/secure-router.js'
import type { Security } from '../security/create-security.js'
import { singleHeader } from '../security/credential-source.js'
import { securityOf } from '../security/request-context.js'
import { browserBindingOf, setBrowserBinding } from './binding-cookie.js'
import { PASSKEY_ROUTE_DOCS } from './openapi.js'

/** The step-up purpose removing a passkey consumes. */
export const PASSKEY_REMOVE_PURPOSE = 'passkey-remove'

const NOT_FOUND: ProblemInit = Object.freeze({
  status: 404,
  code: 'passkey.not_found',
  detail: 'No such passkey',
})

/**
 * Wraps an async route handler: `Cache-Control: no-store` on every answer, and any error rendered as a
 * problem here (so a typed error keeps its client-safe detail).
 */
function noStore(
  handler: (request: Request, response: Response) => Promise<void>,
  onError: ((error: unknown, request: Request) => void) | undefined,
): RequestHandler {
  return (request, response) => {
    response.setHeader('Cache-Control', 'no-store')
    handler(request, response).catch((error: unknown) => {
      try {
        onError?.(error, request)
      } catch {
        // A failing observer must not change the answer.
      }
      sendProblem(response, localProblem(error))
    })
  }
}

/**
 * The step-up credential for `purpose`: the step-up header, or else the purpose's step-up cookie (then
 * deleted at once, whatever the answer). Empty when there is none.
 */
function stepUpTokenOf(
  request: Request,
  response: Response,
  stepUp: Security['stepUp'],
  purpose: string,
): string {
  const header = singleHeader(request, stepUp.header)
  if (header !== undefined) return header
  const cookies = stepUp.cookies
  if (cookies === undefined) return ''
  const read = cookies.read(request.headers.cookie, purpose)
  if (read.kind === 'absent') return ''
  response.append('Set-Cookie', cookies.clear(purpose))
  return read.kind === 'present' ? read.value : ''
}

/** The request body, read once under the limit (or as an application-level parser left it). */
function readBody(request: Request, response: Response, limit: number): Promise<unknown> {
  return expressExchange(request, response).body(limit)
}

export interface PasskeyRoutesOptions {
  readonly passkeys: PasskeyCeremonies
  /** Issues the one-use step-up credential of a verified passkey assertion. */
  readonly passkeyStepUp: PasskeyStepUp
  /** Consumes the `passkey-remove` credential removal needs (the service `security.stepUp` verifies with). */
  readonly stepUp: StepUpService
  /** The local sign-ins of the same accounts: its mechanisms authenticate these routes (CSRF included). */
  readonly local: LocalAccounts
  readonly security: Pick<Security, 'router' | 'stepUp'>
  /** Prefix before `/auth/...`. Default none. */
  readonly base?: string
  /** Largest accepted request body. Default 16 KiB. */
  readonly maxBodyBytes?: number
  /** Observes every error a route answers (logging). Must not throw. */
  readonly onError?: (error: unknown, request: Request) => void
}

const OPTIONS: OptionsShape<PasskeyRoutesOptions> = {
  passkeys: { required: true, kind: 'object' },
  passkeyStepUp: { required: true, kind: 'object' },
  stepUp: { required: true, kind: 'object' },
  local: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof LocalAccounts ? undefined : 'must be a LocalAccounts'),
  },
  security: { required: true, kind: 'object' },
  base: { kind: 'string' },
  maxBodyBytes: { kind: 'number', check: integerBetween(64, 1024 * 1024) },
  onError: { kind: 'function' },
}

/**
 * Passkey routes under `{base}/auth/` for a signed-in caller of the local mechanisms (thin: the
 * ceremonies live in `PasskeyService` and `PasskeyStepUp`):
 *
 * | Route | Does |
 * | --- | --- |
 * | `GET passkeys` | the account's passkeys |
 * | `POST passkeys/{credentialId}/rename` | renames one (`{ name }`) |
 * | `POST passkeys/{credentialId}/remove` | removes one; `passkey-remove` step-up; never the last method (409) |
 * | `POST step-up/{purpose}/passkey/options` | begins a passkey step-up (browser-bound challenge cookie) |
 * | `POST step-up/{purpose}/passkey` | finishes it: the one-use step-up credential of the purpose |
 *
 * Every answer is `Cache-Control: no-store`; errors are problem+json with stable codes.
 */
export function createPasskeyRoutes(options: PasskeyRoutesOptions): SecureRouter {
  readOptions(options, 'createPasskeyRoutes', OPTIONS)
  const { passkeys, passkeyStepUp, stepUp, local, security, onError } = options
  const limit = options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const auth = anyOf(...names)
  const router = security.router({ prefix: `${options.base ?? ''}/auth` })
  const handle = (handler: (request: Request, response: Response) => Promise<void>) =>
    noStore(handler, onError)
  const sessionOf = (request: Request) => {
    const session = localSessionOf(securityOf(request))
    if (session === undefined) throw new HttpProblem(problems.authenticationRequired)
    return session
  }

  router.get(
    '/passkeys',
    { auth, openapi: PASSKEY_ROUTE_DOCS.list },
    handle(async (request, response) => {
      const list = await passkeys.list(sessionOf(request).accountId)
      response.json({
        passkeys: list.map((passkey) => ({
          credentialId: passkey.credentialId,
          name: passkey.name,
          createdAt: passkey.createdAt.toISOString(),
          lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
          suspended: passkey.suspendedAt !== null,
          deviceType: passkey.deviceType,
          backedUp: passkey.backedUp,
        })),
      })
    }),
  )

  router.post(
    '/passkeys/:credentialId/rename',
    { auth, openapi: PASSKEY_ROUTE_DOCS.rename },
    handle(async (request, response) => {
      const session = sessionOf(request)
      const fields = fieldsOf(await readBody(request, response, limit), ['name'], [])
      const credentialId = String(request.params.credentialId)
      if (!(await passkeys.rename({ accountId: session.accountId, credentialId, name: fields.name }))) {
        throw new HttpProblem(NOT_FOUND)
      }
      response.status(204).end()
    }),
  )

  router.post(
    '/passkeys/:credentialId/remove',
    { auth, openapi: PASSKEY_ROUTE_DOCS.remove },
    handle(async (request, response) => {
      const session = sessionOf(request)
      const credentialId = String(request.params.credentialId)
      const owned = (await passkeys.list(session.accountId)).some((key) => key.credentialId === credentialId)
      if (!owned) throw new HttpProblem(NOT_FOUND)
      const consumed = await stepUp.consume({
        token: stepUpTokenOf(request, response, security.stepUp, PASSKEY_REMOVE_PURPOSE),
        accountId: session.accountId,
        purpose: PASSKEY_REMOVE_PURPOSE,
        securityEpoch: session.securityEpoch,
        sessionBinding: session.sessionHandle,
      })
      if (consumed.kind === 'unavailable') throw new HttpProblem(problems.stepUpUnavailable)
      if (consumed.kind !== 'consumed') throw new HttpProblem(problems.stepUpRequired)
      if (!(await passkeys.remove({ accountId: session.accountId, credentialId }))) {
        throw new HttpProblem(NOT_FOUND)
      }
      response.status(204).end()
    }),
  )

  router.post(
    '/step-up/:purpose/passkey/options',
    { auth, openapi: PASSKEY_ROUTE_DOCS.stepUpOptions },
    handle(async (request, response) => {
      const session = sessionOf(request)
      const start = await passkeyStepUp.begin({
        session,
        purpose: String(request.params.purpose),
        browserBinding: browserBindingOf(request),
      })
      if (!start.bindingReused) {
        setBrowserBinding(response, start.revealBrowserBinding(), passkeys.challengeTtlSeconds)
      }
      response.json(start.options)
    }),
  )

  router.post(
    '/step-up/:purpose/passkey',
    { auth, openapi: PASSKEY_ROUTE_DOCS.stepUp },
    handle(async (request, response) => {
      const session = sessionOf(request)
      const credential = await passkeyStepUp.finish({
        session,
        purpose: String(request.params.purpose),
        browserBinding: browserBindingOf(request),
        response: await readBody(request, response, limit),
        clientAddress: local.clientAddress(requestInfo(request)),
      })
      const cookies = security.stepUp.cookies
      if (cookies !== undefined) {
        response.append(
          'Set-Cookie',
          cookies.serialize(credential.purpose, credential.reveal(), credential.expiresAt),
        )
      }
      response.json({
        purpose: credential.purpose,
        stepUpToken: credential.reveal(),
        expiresAt: credential.expiresAt.toISOString(),
      })
    }),
  )
  return router
}
