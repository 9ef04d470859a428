import type { IncomingMessage, ServerResponse } from 'node:http'
import { isPortcullisError } from '@portcullis/core/errors'
import { retryAfterFor } from '@portcullis/http/problem'
import type Provider from 'oidc-provider'
import type { ErrorPage, InteractionHandler } from '../interaction-handler.js'
import { notifyConsented, saveApprovedGrant } from './connection-notice.js'
import { consentView, missingConsentOf, nothingMissing, prepareGrant } from './consent.js'
import { consentForms, type Fail, type InteractionStep } from './consent-form.js'
import { consentBody, consentTitle } from './consent-view.js'
import { InteractionErrorCodes } from './error-codes.js'
import { formTargetSource, header, redirect, sendHtml, sendProblem, wantsHtml } from './http.js'
import { decideLogin } from './login.js'
import {
  DEFAULT_MAX_BODY_BYTES,
  type InteractionsOptions,
  type InteractionUser,
  OAUTH_AUTHORIZE_PURPOSE,
  readInteractionsOptions,
} from './options.js'
import { continueBody, defaultLayout, errorBody, type InteractionPage } from './pages.js'

type Details = Awaited<ReturnType<Provider['interactionDetails']>>

const PATH = /^\/interaction\/([A-Za-z0-9_-]{1,64})\/?$/

/**
 * The interaction pages of the authorization server: the application's own session signs the user in
 * (`signInUrl` otherwise), `prompt=login` and `max_age` go through the application's reauthentication,
 * and consent is asked once per client and user, again only for scopes the grant lacks.
 */
export function createInteractions(options: InteractionsOptions): InteractionHandler {
  readInteractionsOptions(options)
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const descriptions = options.scopeDescriptions ?? {}
  const layout = options.layout ?? defaultLayout

  /** A page in the application's layout (the built-in one by default). */
  const page = async (page: InteractionPage) => layout(page)

  const errorPage = (req: IncomingMessage, error: ErrorPage) =>
    page({
      kind: 'error',
      title: error.title,
      body: errorBody(error.detail, error.code, error.technical),
      request: req,
    })

  const fail: Fail = async (req, res, status, code, title, detail) => {
    if (res.headersSent) return void res.end()
    if (!wantsHtml(req)) return sendProblem(res, { status, code, detail })
    const retryAfter = retryAfterFor(status)
    sendHtml(res, status, await errorPage(req, { status, code, title, detail }), {
      ...(retryAfter === undefined ? {} : { headers: { 'Retry-After': retryAfter } }),
    })
  }

  const forms = consentForms({ options, maxBodyBytes, page, fail })

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
    const location = await provider.interactionResult(
      req,
      res,
      { login: { ...decision.login } },
      { mergeWithLastSubmission: false },
    )
    // A browser that comes back from the application's own pages (its sign-in or reauthentication
    // form) gets a page that moves on by itself: the redirects that follow may end at the client, which
    // the `form-action` of the application's form would refuse. Any other request is redirected.
    if (header(req, 'sec-fetch-site') === 'same-origin' && header(req, 'sec-fetch-mode') === 'navigate') {
      const html = await page({
        kind: 'continue',
        title: 'Signed in',
        body: continueBody(location),
        request: req,
        ...(user === undefined ? {} : { account: { id: user.accountId, name: user.name ?? user.accountId } }),
      })
      return sendHtml(res, 200, html)
    }
    redirect(res, location)
  }

  const consent: InteractionStep<void> = async (req, res, provider, details, user, self) => {
    const missing = missingConsentOf(details)
    const secure = provider.issuer.startsWith('https:')
    if (req.method === 'POST') {
      const decision = await forms.decision(req, res, provider, details, user, self)
      if (decision === undefined) return
      if (decision === 'approve') {
        const client = await provider.Client.find(String(details.params.client_id))
        const view = consentView({
          ...viewInput(details, client, user, missing),
          action: self,
          csrfToken: '',
        })
        const grant = await prepareGrant(provider, details, user.accountId, missing, {
          name: view.client.name,
          host: view.client.idHost ?? view.client.redirectHost,
        })
        // The interaction's result first, then the grant, then the redirect: a refused or failed step
        // leaves no grant behind for an authorization that never reaches its client.
        const location = await provider.interactionResult(
          req,
          res,
          { consent: { grantId: grant.grantId } },
          { mergeWithLastSubmission: true },
        )
        const consented = {
          accountId: user.accountId,
          clientId: view.client.id,
          clientName: view.client.name ?? view.client.idHost ?? view.client.id,
        }
        await saveApprovedGrant(options, grant, consented)
        notifyConsented(options, consented)
        return redirect(res, location)
      }
      if (decision === 'deny') return forms.deny(req, res, provider)
      return fail(req, res, 400, InteractionErrorCodes.body, 'Unknown decision', 'Choose Allow or Deny.')
    }
    // A native client (loopback or custom-scheme redirect) is confirmed every time when the server's
    // policy keeps oidc-provider's `native_client_prompt`: anyone can claim its redirect URI.
    const confirm = details.prompt.reasons.includes('native_client_prompt')
    if (nothingMissing(missing) && details.grantId !== undefined && !confirm) {
      const location = await provider.interactionResult(
        req,
        res,
        { consent: { grantId: details.grantId } },
        { mergeWithLastSubmission: true },
      )
      return redirect(res, location)
    }
    const client = await provider.Client.find(String(details.params.client_id))
    const view = consentView({
      ...viewInput(details, client, user, missing),
      action: self,
      csrfToken: forms.csrf(res, details, user, self, secure),
    })
    const html =
      options.renderConsent === undefined
        ? await page({
            kind: 'consent',
            title: consentTitle(view),
            body: consentBody(view),
            request: req,
            account: { id: view.accountId, name: view.accountName },
          })
        : options.renderConsent(view)
    // The form's answer ends at the client's (validated) redirect URI: `form-action` must allow it.
    const formTarget = formTargetSource(details.params.redirect_uri)
    return sendHtml(res, 200, html, formTarget === undefined ? {} : { formTarget })
  }

  const viewInput = (
    details: Details,
    client: Awaited<ReturnType<Provider['Client']['find']>>,
    user: InteractionUser,
    missing: ReturnType<typeof missingConsentOf>,
  ) => ({
    details,
    clientName: typeof client?.clientName === 'string' ? client.clientName : undefined,
    accountId: user.accountId,
    accountName: user.name,
    missing,
    descriptions,
  })

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
    // An impersonation never authorizes a client: not at consent, nor at the login step, after which a
    // client already connected would be handed a code without asking.
    if (user?.impersonator !== undefined && (prompt === 'login' || prompt === 'consent')) {
      return forms.refuseImpersonation(req, res, provider, details, user, self)
    }
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
    return fail(
      req,
      res,
      400,
      InteractionErrorCodes.expired,
      'Authorization expired',
      'This authorization request is unknown or has expired. Return to the application and start again.',
    )
  }

  return {
    errorPage,
    handle: async (req, res, provider) => {
      try {
        await handle(req, res, provider)
      } catch (error) {
        if (isSessionNotFound(error)) return expired(req, res)
        if (isUnavailable(error)) {
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
        await fail(
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

/**
 * A port that could not answer: a Portcullis `unavailable` error, or the 503 `temporarily_unavailable`
 * the server's store bridge turns one into inside oidc-provider.
 */
function isUnavailable(error: unknown): boolean {
  if (isPortcullisError(error)) return error.errorClass === 'unavailable'
  const candidate = error as { error?: unknown; status?: unknown } | null
  return error instanceof Error && candidate?.error === 'temporarily_unavailable' && candidate.status === 503
}

function isSessionNotFound(error: unknown): boolean {
  return error instanceof Error && error.name === 'SessionNotFound'
}
