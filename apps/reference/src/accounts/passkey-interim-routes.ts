import type { AccountSession } from '@portcullis/core/accounts'
import type { LocalAccounts } from '@portcullis/core/local-accounts'
import type { PasskeyService } from '@portcullis/core/passkeys'
import { anonymous, required } from '@portcullis/core/policy'
import type { StepUpService } from '@portcullis/core/step-up'
import {
  HttpProblem,
  type LocalAccountRoutes,
  localSessionOf,
  PASSKEY_BINDING_COOKIE,
  type SecuredRequest,
  type SecureRouter,
  type Security,
} from '@portcullis/express'
import express, { type Request, type Response } from 'express'
import { requestInfo } from './forms.js'
import { SESSION_MECHANISM } from './local-accounts.js'

// Stand-ins for the passkey registration and sign-in routes `passkeyRoutes` of @portcullis/express will
// serve (same paths, bodies and answers); this file goes when the app mounts those.

const REGISTER_PURPOSE = 'passkey-register'
const BINDING = new RegExp(`(?:^|;\\s*)${PASSKEY_BINDING_COOKIE}=([\\w-]{16,128})(?:;|$)`)

const bindingOf = (request: Request) => BINDING.exec(request.headers.cookie ?? '')?.[1]
const setBinding = (response: Response, value: string, seconds: number) =>
  response.append(
    'Set-Cookie',
    `${PASSKEY_BINDING_COOKIE}=${value}; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=${seconds}`,
  )

export interface PasskeyInterimOptions {
  readonly passkeys: PasskeyService
  readonly stepUp: StepUpService
  readonly local: LocalAccounts
  readonly localRoutes: Pick<LocalAccountRoutes, 'establishSignIn'>
  readonly security: Pick<Security, 'router' | 'stepUp'>
}

export function passkeyInterimRoutes(options: PasskeyInterimOptions): SecureRouter {
  const { passkeys, stepUp, local, security } = options
  const router = security.router({ prefix: '/auth' })
  const json = express.json({ limit: 16 * 1024 })
  const auth = required(SESSION_MECHANISM)
  const sessionOf = (request: SecuredRequest): AccountSession => {
    const session = localSessionOf(request.security)
    if (session === undefined)
      throw new HttpProblem({ status: 401, code: 'auth.required', detail: 'Sign in' })
    return session
  }
  const started = (response: Response, start: Awaited<ReturnType<PasskeyService['beginAuthentication']>>) => {
    if (!start.bindingReused) setBinding(response, start.revealBrowserBinding(), passkeys.challengeTtlSeconds)
    response.setHeader('Cache-Control', 'no-store')
    response.json(start.options)
  }

  router.post('/passkeys/register/options', { auth }, async (request, response) => {
    const session = sessionOf(request)
    const cookies = security.stepUp.cookies
    const read = cookies?.read(request.headers.cookie, REGISTER_PURPOSE)
    if (cookies !== undefined && read?.kind !== 'absent')
      response.append('Set-Cookie', cookies.clear(REGISTER_PURPOSE))
    const consumed = await stepUp.consume({
      token: request.get(security.stepUp.header) ?? (read?.kind === 'present' ? read.value : ''),
      accountId: session.accountId,
      purpose: REGISTER_PURPOSE,
      securityEpoch: session.securityEpoch,
      sessionBinding: session.sessionHandle,
    })
    if (consumed.kind !== 'consumed')
      throw new HttpProblem({ status: 401, code: 'step-up.required', detail: 'Confirm first' })
    const start = await passkeys.beginRegistration({
      accountId: session.accountId,
      userName: request.security.principal?.displayName ?? session.accountId,
      sessionBinding: session.sessionHandle,
      browserBinding: bindingOf(request),
    })
    started(response, start as never)
  })

  router.post('/passkeys/register', { auth }, json, async (request, response) => {
    const session = sessionOf(request)
    const body = (request.body ?? {}) as { response?: unknown; name?: unknown }
    const passkey = await passkeys.finishRegistration({
      accountId: session.accountId,
      sessionBinding: session.sessionHandle,
      browserBinding: bindingOf(request),
      response: body.response,
      ...(typeof body.name === 'string' && body.name !== '' ? { name: body.name } : {}),
    })
    response.setHeader('Cache-Control', 'no-store')
    response.status(201).json({ passkey: { credentialId: passkey.credentialId, name: passkey.name } })
  })

  const csrfPasses = (request: Request) =>
    local.csrf.check({
      method: request.method,
      secFetchSite: request.get('sec-fetch-site'),
      origin: request.get('origin'),
      presentedToken: request.get(local.csrf.header),
      sessionId: local.csrf.anchorFrom(request.headers.cookie),
      clientAddress: local.clientAddress(requestInfo(request)),
    }).ok
  const refuseCrossSite = () =>
    new HttpProblem({ status: 403, code: 'local.csrf_refused', detail: 'Cross-site request refused' })

  router.post('/passkeys/sign-in/options', { auth: anonymous() }, async (request, response) => {
    if (!csrfPasses(request)) throw refuseCrossSite()
    started(response, await passkeys.beginAuthentication({ browserBinding: bindingOf(request) }))
  })

  router.post('/passkeys/sign-in', { auth: anonymous() }, json, async (request, response) => {
    if (!csrfPasses(request)) throw refuseCrossSite()
    const assertion = await passkeys.finishAuthentication({
      browserBinding: bindingOf(request),
      response: ((request.body ?? {}) as { response?: unknown }).response,
      clientAddress: local.clientAddress(requestInfo(request)),
    })
    await options.localRoutes.establishSignIn(request, response, {
      accountId: assertion.accountId,
      transport: 'session',
    })
    response.setHeader('Cache-Control', 'no-store')
    response.json({ accountId: assertion.accountId })
  })
  return router
}
