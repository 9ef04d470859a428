import type { IncomingMessage, ServerResponse } from 'node:http'
import type Provider from 'oidc-provider'
import { consentNonce, consentPostAllowed, consentToken } from './csrf.js'
import { InteractionErrorCodes } from './error-codes.js'
import { appendSetCookie, cookieOf, formTargetSource, header, readForm, redirect, sendHtml } from './http.js'
import {
  IMPERSONATION_REFUSED_DETAIL,
  IMPERSONATION_REFUSED_TITLE,
  impersonationRefusedBody,
  reportImpersonationRefused,
} from './impersonation-refusal.js'
import type { InteractionsOptions, InteractionUser } from './options.js'
import type { InteractionPage } from './pages.js'

type Details = Awaited<ReturnType<Provider['interactionDetails']>>

const CSRF_COOKIE = 'portcullis_consent'

/** Answers a refusal: the page in the application's layout for a browser, problem+json otherwise. */
export type Fail = (
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  code: string,
  title: string,
  detail: string,
) => Promise<void>

/** One step of an interaction for a signed-in user; `self` is the interaction's own path. */
export type InteractionStep<T> = (
  req: IncomingMessage,
  res: ServerResponse,
  provider: Provider,
  details: Details,
  user: InteractionUser,
  self: string,
) => Promise<T>

export interface ConsentFormParts {
  readonly options: InteractionsOptions
  readonly maxBodyBytes: number
  readonly page: (page: InteractionPage) => Promise<string>
  readonly fail: Fail
}

/**
 * The consent form's parts: its CSRF nonce and token, reading a posted decision, Deny, and the page an
 * impersonation gets instead of the consent page.
 */
export function consentForms(parts: ConsentFormParts) {
  const { options, maxBodyBytes, page, fail } = parts
  /**
   * The decision of a posted consent form (`approve`, `deny`, or whatever else it says), once the form
   * and its CSRF proof are verified and the nonce cookie cleared; undefined when refused (answered).
   */
  const decision: InteractionStep<string | undefined> = async (req, res, provider, details, user, self) => {
    const body = await readForm(req, maxBodyBytes)
    if (body.kind === 'refused') {
      const { problem } = body
      if (problem.status === 413) res.setHeader('Connection', 'close')
      const titles: Record<number, string> = { 413: 'Request too large', 415: 'Unsupported form' }
      await fail(
        req,
        res,
        problem.status,
        InteractionErrorCodes.body,
        titles[problem.status] ?? 'Malformed form',
        problem.status === 413
          ? 'The form is larger than allowed.'
          : 'The consent form must be posted as a form, each field once.',
      )
      return undefined
    }
    const allowed = consentPostAllowed({
      method: 'POST',
      secFetchSite: header(req, 'sec-fetch-site'),
      origin: header(req, 'origin'),
      targetOrigin: new URL(provider.issuer).origin,
      presented: body.form.csrf,
      cookieNonce: cookieOf(req, CSRF_COOKIE),
      uid: details.uid,
      accountId: user.accountId,
    })
    if (!allowed) {
      await fail(
        req,
        res,
        403,
        InteractionErrorCodes.csrf,
        'Request refused',
        'The consent form could not be verified. Start the authorization again.',
      )
      return undefined
    }
    const secure = provider.issuer.startsWith('https:')
    appendSetCookie(
      res,
      `${CSRF_COOKIE}=; Path=${self}; Max-Age=0; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`,
    )
    return body.form.decision ?? ''
  }

  async function deny(req: IncomingMessage, res: ServerResponse, provider: Provider) {
    const location = await provider.interactionResult(
      req,
      res,
      { error: 'access_denied', error_description: 'the user denied the authorization' },
      { mergeWithLastSubmission: false },
    )
    return redirect(res, location)
  }

  /**
   * An impersonation at the login or consent step: shown why it cannot authorize the client (even one
   * already connected, whose new tokens would outlast it too), with Deny as the only answer; a posted
   * Allow is refused. Each refusal is told to `onImpersonationRefused`.
   */
  const refuseImpersonation: InteractionStep<void> = async (req, res, provider, details, user, self) => {
    if (req.method === 'POST') {
      const answer = await decision(req, res, provider, details, user, self)
      if (answer === undefined) return
      if (answer === 'deny') return deny(req, res, provider)
      reportImpersonationRefused(options, user, String(details.params.client_id))
      return fail(
        req,
        res,
        403,
        InteractionErrorCodes.impersonated,
        IMPERSONATION_REFUSED_TITLE,
        IMPERSONATION_REFUSED_DETAIL,
      )
    }
    reportImpersonationRefused(options, user, String(details.params.client_id))
    const html = await page({
      kind: 'error',
      title: IMPERSONATION_REFUSED_TITLE,
      body: impersonationRefusedBody({
        action: self,
        csrfToken: csrf(res, details, user, self, provider.issuer.startsWith('https:')),
        code: InteractionErrorCodes.impersonated,
      }),
      request: req,
      account: { id: user.accountId, name: user.name ?? user.accountId },
    })
    const formTarget = formTargetSource(details.params.redirect_uri)
    return sendHtml(res, 403, html, formTarget === undefined ? {} : { formTarget })
  }

  /** Sets the consent form's nonce cookie (the interaction's path, until it expires); its token. */
  const csrf = (
    res: ServerResponse,
    details: Details,
    user: InteractionUser,
    self: string,
    secure: boolean,
  ) => {
    const nonce = consentNonce()
    const ttl = Math.max(1, details.exp - Math.floor(Date.now() / 1000))
    appendSetCookie(
      res,
      `${CSRF_COOKIE}=${nonce}; Path=${self}; Max-Age=${ttl}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`,
    )
    return consentToken(nonce, details.uid, user.accountId)
  }

  return { decision, deny, csrf, refuseImpersonation }
}
