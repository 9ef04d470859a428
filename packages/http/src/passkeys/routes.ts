import { integerBetween, type OptionsShape } from '@portcullis/core/errors'
import { LocalAccounts, type SessionSignIn, type TokenSignIn } from '@portcullis/core/local-accounts'
import type { PasskeyCeremonies, PasskeyCredential, PasskeyStepUp } from '@portcullis/core/passkeys'
import { anonymous, anyOf } from '@portcullis/core/policy'
import type { StepUpService } from '@portcullis/core/step-up'
import { fieldsOf } from '../accounts/bodies.js'
import { consumeStepUp } from '../accounts/step-up.js'
import { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '../body/body.js'
import {
  authRouteTable,
  type HttpExchange,
  jsonAnswer,
  type NeutralRoute,
  problemAnswer,
} from '../exchange/exchange.js'
import { localCsrf } from '../local-accounts/csrf.js'
import { localPath, sessionBody, tokenBody } from '../local-accounts/routes.js'
import { establishSignIn } from '../local-accounts/sign-in.js'
import type { StepUpTransport } from '../oauth/options.js'
import { requireLocalSession } from '../oauth/session.js'
import { HttpProblem, type ProblemInit } from '../problem/problem.js'
import { browserBindingCookie, browserBindingFrom } from './binding-cookie.js'
import { PASSKEY_ROUTE_DOCS } from './openapi.js'

/** The step-up purpose `POST passkeys/register/options` consumes. */
export const PASSKEY_REGISTER_PURPOSE = 'passkey-register'
/** The step-up purpose removing a passkey consumes. */
export const PASSKEY_REMOVE_PURPOSE = 'passkey-remove'
/** What a passkey sign-in's access tokens say about it (RFC 8176: hardware key, user verified). */
export const PASSKEY_AMR: readonly string[] = Object.freeze(['hwk', 'user'])

const NOT_FOUND: ProblemInit = Object.freeze({
  status: 404,
  code: 'passkey.not_found',
  detail: 'No such passkey',
})

/** What every adapter's passkey routes take besides its own `security` and `onError`. */
export interface PasskeyRouteTableOptions {
  /** The WebAuthn ceremonies (`PasskeyService` implements them). */
  readonly passkeys: PasskeyCeremonies
  /** Issues the one-use step-up credential of a verified passkey assertion. */
  readonly passkeyStepUp: PasskeyStepUp
  /** Consumes the `passkey-register` and `passkey-remove` credentials (the service guards verify with). */
  readonly stepUp: StepUpService
  /** The local sign-ins of the same accounts: its mechanisms authenticate these routes (CSRF included). */
  readonly local: LocalAccounts
  /** Prefix before `/auth/...`. Default none. */
  readonly base?: string
  /** Largest accepted request body. Default 16 KiB; at most 1 MiB. */
  readonly maxBodyBytes?: number
}

export const PASSKEY_ROUTE_TABLE_OPTIONS: OptionsShape<PasskeyRouteTableOptions> = {
  passkeys: { required: true, kind: 'object' },
  passkeyStepUp: { required: true, kind: 'object' },
  stepUp: { required: true, kind: 'object' },
  local: {
    required: true,
    kind: 'object',
    check: (value) => (value instanceof LocalAccounts ? undefined : 'must be a LocalAccounts'),
  },
  base: { kind: 'string' },
  maxBodyBytes: { kind: 'number', check: integerBetween(64, 1024 * 1024) },
}

/** The JSON form of a passkey: never its public key or counter. */
export function passkeyView(passkey: PasskeyCredential) {
  return {
    credentialId: passkey.credentialId,
    name: passkey.name,
    createdAt: passkey.createdAt.toISOString(),
    lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
    suspended: passkey.suspendedAt !== null,
    deviceType: passkey.deviceType,
    backedUp: passkey.backedUp,
  }
}

const invalid = (detail: string) => new HttpProblem({ status: 400, code: 'passkey.invalid_input', detail })

/** `{ response, name? }`: the browser's credential JSON (checked by the ceremony) and an optional name. */
function ceremonyBody(body: unknown, named: boolean): { response: unknown; name?: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('the body must be a JSON object')
  }
  const members = body as Record<string, unknown>
  for (const key of Object.keys(members)) {
    if (key !== 'response' && !(named && key === 'name'))
      throw invalid(`${key} is not a member of this request`)
  }
  const response = members.response
  if (typeof response !== 'object' || response === null) throw invalid('response must be an object')
  const name = members.name
  if (name !== undefined && typeof name !== 'string') throw invalid('name must be a string')
  return name === undefined ? { response } : { response, name }
}

/**
 * The passkey routes under `{base}/auth/` as a framework-neutral route table:
 *
 * | Route | Caller | Does |
 * | --- | --- | --- |
 * | `GET passkeys` | signed in | the account's passkeys |
 * | `POST passkeys/register/options` | signed in, `passkey-register` step-up | options for `navigator.credentials.create()` |
 * | `POST passkeys/register` | signed in | `{ response, name? }`: stores the passkey (201) |
 * | `POST passkeys/sign-in/options` | anyone (CSRF like `login`) | discoverable sign-in options (conditional UI) |
 * | `POST passkeys/sign-in` | anyone (CSRF like `login`) | `{ response }`: a session, as `login` (session profiles) |
 * | `POST passkeys/token` | anyone | `{ response }`: a token pair, as `token` (token profiles) |
 * | `POST passkeys/{credentialId}/rename` | signed in | `{ name }` |
 * | `POST passkeys/{credentialId}/remove` | signed in, `passkey-remove` step-up | never the last method (409) |
 * | `POST step-up/{purpose}/passkey/options` | signed in | begins a passkey step-up |
 * | `POST step-up/{purpose}/passkey` | signed in | finishes it: the one-use step-up credential |
 *
 * Every ceremony start sets the HttpOnly `__Host-portcullis-passkey` binding cookie unless the browser
 * already has one. A passkey sign-in carries `amr: ["hwk", "user"]` and asks for no second factor (the
 * ceremony requires user verification). Errors are problem+json with stable codes.
 */
export function passkeyRouteTable(
  options: PasskeyRouteTableOptions,
  transport: StepUpTransport,
): NeutralRoute[] {
  const { passkeys, passkeyStepUp, stepUp, local } = options
  const base = localPath(options.base ?? '', 'base')
  const limit = options.maxBodyBytes ?? LOCAL_ACCOUNTS_MAX_BODY_BYTES
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const signedIn = anyOf(...names)
  const csrf = localCsrf(local)
  const { routes, add } = authRouteTable(base)
  const sessionOf = (exchange: HttpExchange) => requireLocalSession(exchange.security)
  const bindingOf = (exchange: HttpExchange) => browserBindingFrom(exchange.cookieHeader)
  const started = (start: { bindingReused: boolean; revealBrowserBinding(): string; options: unknown }) =>
    jsonAnswer(
      start.options,
      200,
      start.bindingReused
        ? []
        : [browserBindingCookie(start.revealBrowserBinding(), passkeys.challengeTtlSeconds)],
    )
  /** The account a sign-in assertion names (user verification required by the ceremony). */
  const assertedAccount = async (exchange: HttpExchange) => {
    const { response } = ceremonyBody(await exchange.body(limit), false)
    const assertion = await passkeys.finishAuthentication({
      browserBinding: bindingOf(exchange),
      response,
      clientAddress: local.clientAddress(exchange.requestInfo),
    })
    return assertion.accountId
  }
  // Signing in creates cookie state: CSRF-checked exactly like POST /login (a seed or session anchor).
  const csrfRefused = (exchange: HttpExchange) =>
    local.sessionMechanismName !== undefined &&
    !csrf.decide(exchange, local.csrf.anchorFrom(exchange.cookieHeader)).ok

  add('GET', '/passkeys', { auth: signedIn, openapi: PASSKEY_ROUTE_DOCS.list }, async (exchange) => {
    const list = await passkeys.list(sessionOf(exchange).accountId)
    return jsonAnswer({ passkeys: list.map(passkeyView) })
  })

  add(
    'POST',
    '/passkeys/register/options',
    { auth: signedIn, openapi: PASSKEY_ROUTE_DOCS.registerOptions },
    async (exchange) => {
      const session = sessionOf(exchange)
      await consumeStepUp(exchange, transport, stepUp, session, PASSKEY_REGISTER_PURPOSE)
      const userName = (await local.usernameOf(session.accountId)) ?? session.accountId
      return started(
        await passkeys.beginRegistration({
          accountId: session.accountId,
          userName,
          sessionBinding: session.sessionHandle,
          browserBinding: bindingOf(exchange),
        }),
      )
    },
  )

  add(
    'POST',
    '/passkeys/register',
    { auth: signedIn, openapi: PASSKEY_ROUTE_DOCS.register },
    async (exchange) => {
      const session = sessionOf(exchange)
      const body = ceremonyBody(await exchange.body(limit), true)
      const passkey = await passkeys.finishRegistration({
        accountId: session.accountId,
        sessionBinding: session.sessionHandle,
        browserBinding: bindingOf(exchange),
        ...body,
      })
      return jsonAnswer({ passkey: passkeyView(passkey) }, 201)
    },
  )

  add(
    'POST',
    '/passkeys/sign-in/options',
    { auth: anonymous(), openapi: PASSKEY_ROUTE_DOCS.signInOptions },
    async (exchange) => {
      if (csrfRefused(exchange)) return problemAnswer(csrf.refused)
      return started(await passkeys.beginAuthentication({ browserBinding: bindingOf(exchange) }))
    },
  )

  if (local.sessionMechanismName !== undefined) {
    add(
      'POST',
      '/passkeys/sign-in',
      { auth: anonymous(), openapi: PASSKEY_ROUTE_DOCS.signIn },
      async (exchange) => {
        if (csrfRefused(exchange)) return problemAnswer(csrf.refused)
        const accountId = await assertedAccount(exchange)
        const signIn = (await establishSignIn(local, exchange, {
          accountId,
          transport: 'session',
          amr: PASSKEY_AMR,
        })) as SessionSignIn
        return jsonAnswer(sessionBody(signIn), 200, [signIn.setCookie])
      },
    )
  }

  if (local.bearerMechanismName !== undefined) {
    add(
      'POST',
      '/passkeys/token',
      { auth: anonymous(), openapi: PASSKEY_ROUTE_DOCS.token },
      async (exchange) => {
        const accountId = await assertedAccount(exchange)
        const pair = (await establishSignIn(local, exchange, {
          accountId,
          transport: 'tokens',
          amr: PASSKEY_AMR,
        })) as TokenSignIn
        return jsonAnswer(tokenBody(pair))
      },
    )
  }

  add(
    'POST',
    '/passkeys/:credentialId/rename',
    { auth: signedIn, openapi: PASSKEY_ROUTE_DOCS.rename },
    async (exchange) => {
      const session = sessionOf(exchange)
      const fields = fieldsOf(await exchange.body(limit), ['name'], [])
      const credentialId = String(exchange.params.credentialId)
      if (!(await passkeys.rename({ accountId: session.accountId, credentialId, name: fields.name }))) {
        throw new HttpProblem(NOT_FOUND)
      }
      return { status: 204 }
    },
  )

  add(
    'POST',
    '/passkeys/:credentialId/remove',
    { auth: signedIn, openapi: PASSKEY_ROUTE_DOCS.remove },
    async (exchange) => {
      const session = sessionOf(exchange)
      const credentialId = String(exchange.params.credentialId)
      const owned = (await passkeys.list(session.accountId)).some((key) => key.credentialId === credentialId)
      if (!owned) throw new HttpProblem(NOT_FOUND)
      await consumeStepUp(exchange, transport, stepUp, session, PASSKEY_REMOVE_PURPOSE)
      if (!(await passkeys.remove({ accountId: session.accountId, credentialId }))) {
        throw new HttpProblem(NOT_FOUND)
      }
      return { status: 204 }
    },
  )

  add(
    'POST',
    '/step-up/:purpose/passkey/options',
    { auth: signedIn, openapi: PASSKEY_ROUTE_DOCS.stepUpOptions },
    async (exchange) =>
      started(
        await passkeyStepUp.begin({
          session: sessionOf(exchange),
          purpose: String(exchange.params.purpose),
          browserBinding: bindingOf(exchange),
        }),
      ),
  )

  add(
    'POST',
    '/step-up/:purpose/passkey',
    { auth: signedIn, openapi: PASSKEY_ROUTE_DOCS.stepUp },
    async (exchange) => {
      const credential = await passkeyStepUp.finish({
        session: sessionOf(exchange),
        purpose: String(exchange.params.purpose),
        browserBinding: bindingOf(exchange),
        response: ceremonyBody(await exchange.body(limit), false).response,
        clientAddress: local.clientAddress(exchange.requestInfo),
      })
      const cookies = transport.cookies
      const setCookies =
        cookies === undefined
          ? []
          : [cookies.serialize(credential.purpose, credential.reveal(), credential.expiresAt)]
      return jsonAnswer(
        {
          purpose: credential.purpose,
          stepUpToken: credential.reveal(),
          expiresAt: credential.expiresAt.toISOString(),
        },
        200,
        setCookies,
      )
    },
  )
  return routes
}
