import type { IncomingMessage, ServerResponse } from 'node:http'
import { isPortcullisError } from '@portcullis/core/errors'
import type Provider from 'oidc-provider'
import type { InteractionHandler } from '../interaction-handler.js'
import { approve, consentView, missingConsentOf, nothingMissing } from './consent.js'
import { renderDefaultConsent, renderInteractionError } from './consent-view.js'
import { ConsentCsrf } from './csrf.js'
import {
  appendSetCookie,
  cookieOf,
  readForm,
  redirect,
  secureHeaders,
  sendHtml,
  sendProblem,
} from './http.js'
import { decideLogin } from './login.js'
import {
  DEFAULT_MAX_BODY_BYTES,
  type InteractionsOptions,
  type InteractionUser,
  OAUTH_AUTHORIZE_PURPOSE,
  readInteractionsOptions,
} from './options.js'

type Details = Awaited<ReturnType<Provider['interactionDetails']>>

const PATH = /^\/interaction\/([A-Za-z0-9_-]{1,64})\/?$/
const CSRF_COOKIE = 'portcullis_consent'

/** Stable codes of the interaction's refusals (problem+json `code`, and the HTML page's reason). */
export const InteractionErrorCodes = Object.freeze({
  notFound: 'authorization_server.interaction_not_found',
  expired: 'authorization_server.interaction_expired',
  method: 'authorization_server.interaction_method',
  csrf: 'authorization_server.interaction_csrf_refused',
  body: 'authorization_server.interaction_body',
  prompt: 'authorization_server.interaction_prompt',
  unavailable: 'authorization_server.interaction_unavailable',
  failed: 'authorization_server.interaction_failed',
} as const)

/**
 * The interaction pages of the authorization server: the application's own session signs the user in
 * (`signInUrl` otherwise), `prompt=login` and `max_age` go through the application's reauthentication,
 * and consent is asked once per client and user, again only for scopes the grant lacks.
 */
export function createInteractions(options: InteractionsOptions): InteractionHandler {
  readInteractionsOptions(options)
  const csrf = new ConsentCsrf(options.csrfKey)
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const descriptions = options.scopeDescriptions ?? {}
  const render = options.renderConsent ?? renderDefaultConsent

  const fail = (
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    code: string,
    title: string,
    detail: string,
  ) => {
    if (res.headersSent) return void res.end()
    const accept = req.headers.accept ?? ''
    if (/application\/(problem\+)?json/.test(accept) && !accept.includes('text/html')) {
      sendProblem(res, status, code, title, detail)
    } else {
      sendHtml(res, status, renderInteractionError(title, detail))
    }
  }

  async function login(
    req: IncomingMessage,
    res: ServerResponse,
    provider: Provider,
    details: Details,
    user: InteractionUser | undefined,
    self: string,
  ) {
    const decision = await decideLogin({
      user,
      params: details.params as Record<string, unknown>,
      interactionIssuedAt: details.iat,
      now: new Date(),
      consume: () =>
        options.reauthentication.consume(req, {
          purpose: OAUTH_AUTHORIZE_PURPOSE,
          accountId: (user as InteractionUser).accountId,
        }),
    })
    if (decision.kind === 'sign-in') return redirect(res, options.signInUrl(self))
    if (decision.kind === 'reauthenticate') return redirect(res, options.reauthentication.url(self))
    secureHeaders(res)
    await provider.interactionFinished(
      req,
      res,
      { login: { ...decision.login } },
      { mergeWithLastSubmission: false },
    )
  }

  async function consent(
    req: IncomingMessage,
    res: ServerResponse,
    provider: Provider,
    details: Details,
    user: InteractionUser,
    self: string,
  ) {
    const missing = missingConsentOf(details)
    const secure = provider.issuer.startsWith('https:')
    if (req.method === 'POST') {
      const body = await readForm(req, maxBodyBytes)
      if (body.kind === 'too-large') {
        res.setHeader('Connection', 'close')
        return fail(
          req,
          res,
          413,
          InteractionErrorCodes.body,
          'Request too large',
          'The form is larger than allowed.',
        )
      }
      if (body.kind === 'unsupported') {
        return fail(
          req,
          res,
          415,
          InteractionErrorCodes.body,
          'Unsupported form',
          'The consent form must be posted as a form.',
        )
      }
      const crossSite =
        req.headers['sec-fetch-site'] !== undefined && req.headers['sec-fetch-site'] !== 'same-origin'
      const origin = req.headers.origin
      const foreignOrigin = origin !== undefined && origin !== new URL(provider.issuer).origin
      if (
        crossSite ||
        foreignOrigin ||
        !csrf.verify(body.form.get('csrf'), cookieOf(req, CSRF_COOKIE), details.uid, user.accountId)
      ) {
        return fail(
          req,
          res,
          403,
          InteractionErrorCodes.csrf,
          'Request refused',
          'The consent form could not be verified. Start the authorization again.',
        )
      }
      appendSetCookie(
        res,
        `${CSRF_COOKIE}=; Path=${self}; Max-Age=0; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`,
      )
      secureHeaders(res)
      const decision = body.form.get('decision')
      if (decision === 'approve') {
        const grantId = await approve(provider, details, user.accountId, missing)
        return provider.interactionFinished(
          req,
          res,
          { consent: { grantId } },
          { mergeWithLastSubmission: true },
        )
      }
      if (decision === 'deny') {
        return provider.interactionFinished(
          req,
          res,
          { error: 'access_denied', error_description: 'the user denied the authorization' },
          { mergeWithLastSubmission: false },
        )
      }
      return fail(req, res, 400, InteractionErrorCodes.body, 'Unknown decision', 'Choose Allow or Deny.')
    }
    // A native client (loopback or custom-scheme redirect) is confirmed every time when the server's
    // policy keeps oidc-provider's `native_client_prompt`: anyone can claim its redirect URI.
    const confirm = details.prompt.reasons.includes('native_client_prompt')
    if (nothingMissing(missing) && details.grantId !== undefined && !confirm) {
      secureHeaders(res)
      return provider.interactionFinished(
        req,
        res,
        { consent: { grantId: details.grantId } },
        { mergeWithLastSubmission: true },
      )
    }
    const client = await provider.Client.find(String(details.params.client_id))
    const nonce = csrf.nonce()
    const ttl = Math.max(1, details.exp - Math.floor(Date.now() / 1000))
    appendSetCookie(
      res,
      `${CSRF_COOKIE}=${nonce}; Path=${self}; Max-Age=${ttl}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`,
    )
    const view = consentView({
      details,
      clientName: typeof client?.clientName === 'string' ? client.clientName : undefined,
      accountId: user.accountId,
      missing,
      descriptions,
      action: self,
      csrfToken: csrf.token(details.uid, user.accountId, nonce),
    })
    return sendHtml(res, 200, render(view))
  }

  async function handle(req: IncomingMessage, res: ServerResponse, provider: Provider): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://interaction.invalid').pathname
    const uid = PATH.exec(path)?.[1]
    if (uid === undefined)
      return fail(req, res, 404, InteractionErrorCodes.notFound, 'Not found', 'There is no such page.')
    if (req.method !== 'GET' && req.method !== 'POST') {
      res.setHeader('Allow', 'GET, POST')
      return fail(
        req,
        res,
        405,
        InteractionErrorCodes.method,
        'Method not allowed',
        'This page answers GET and POST.',
      )
    }
    let details: Details
    try {
      details = await provider.interactionDetails(req, res)
    } catch (error) {
      if (isSessionNotFound(error)) return expired(req, res)
      throw error
    }
    if (details.uid !== uid) return expired(req, res)
    const self = `${new URL(provider.issuer).pathname.replace(/\/$/, '')}/interaction/${uid}`
    const user = await options.currentUser(req)
    const prompt = details.prompt?.name
    if (prompt === 'login') {
      if (req.method === 'POST')
        return fail(req, res, 405, InteractionErrorCodes.method, 'Method not allowed', 'Sign in first.')
      return login(req, res, provider, details, user, self)
    }
    if (prompt !== 'consent') {
      return fail(
        req,
        res,
        400,
        InteractionErrorCodes.prompt,
        'Unsupported request',
        'This authorization asks for an interaction this server does not offer.',
      )
    }
    // The account must stay the same across the interaction: another user signed in means a new login.
    if (user === undefined || user.accountId !== details.session?.accountId) {
      if (req.method === 'POST') return redirect(res, self)
      return login(req, res, provider, details, user, self)
    }
    return consent(req, res, provider, details, user, self)
  }

  function expired(req: IncomingMessage, res: ServerResponse) {
    fail(
      req,
      res,
      400,
      InteractionErrorCodes.expired,
      'Authorization expired',
      'This authorization request is unknown or has expired. Return to the application and start again.',
    )
  }

  return {
    handle: async (req, res, provider) => {
      try {
        await handle(req, res, provider)
      } catch (error) {
        if (isSessionNotFound(error)) return expired(req, res)
        if (isPortcullisError(error) && error.errorClass === 'unavailable') {
          return fail(
            req,
            res,
            503,
            InteractionErrorCodes.unavailable,
            'Temporarily unavailable',
            'Try again in a moment.',
          )
        }
        options.onError?.(error)
        fail(
          req,
          res,
          500,
          InteractionErrorCodes.failed,
          'Something went wrong',
          'The authorization could not be completed.',
        )
      }
    },
  }
}

function isSessionNotFound(error: unknown): boolean {
  return error instanceof Error && error.name === 'SessionNotFound'
}
