import { readFileSync } from 'node:fs'
import type { Security } from '@portcullis/express'
import type { Request, RequestHandler } from 'express'
import type { DemoDirectory } from '../directory/demo-directory.js'
import { html, type SafeHtml } from './html.js'
import {
  CODE_LINK_SCRIPT_PATH,
  COPY_SCRIPT_PATH,
  layout,
  PASSKEYS_SCRIPT_PATH,
  SIGN_IN_PATH,
  STYLESHEET_PATH,
  sessionViewer,
} from './layout.js'

const ASSETS: ReadonlyMap<string, { readonly type: string; readonly text: string }> = new Map([
  [
    STYLESHEET_PATH,
    { type: 'text/css', text: readFileSync(new URL('./portcullis.css', import.meta.url), 'utf8') },
  ],
  [
    COPY_SCRIPT_PATH,
    { type: 'text/javascript', text: readFileSync(new URL('./copy.js', import.meta.url), 'utf8') },
  ],
  [
    CODE_LINK_SCRIPT_PATH,
    { type: 'text/javascript', text: readFileSync(new URL('./code-link.js', import.meta.url), 'utf8') },
  ],
  [
    PASSKEYS_SCRIPT_PATH,
    { type: 'text/javascript', text: readFileSync(new URL('./passkeys.js', import.meta.url), 'utf8') },
  ],
])

/** Serves the stylesheet and the passkey script (cached for an hour; they change only with the app). */
export const stylesheet: RequestHandler = (request, response, next) => {
  const asset = ASSETS.get(request.path)
  if (asset === undefined || (request.method !== 'GET' && request.method !== 'HEAD')) {
    next()
    return
  }
  response.setHeader('Cache-Control', 'public, max-age=3600')
  response.type(asset.type).send(asset.text)
}

interface Problem {
  readonly status?: number
  readonly code?: string
}

/** Explanations of refusals a person meets, by the problem's stable code (the status decides the rest). */
const confirmAgain = () => ({
  title: 'Confirm again',
  body: html`<p>This action needs a fresh confirmation, and there was none, or it was already used or has
    expired. Each confirmation works once, for the one action it was given for, within five minutes.</p>
    <p><a class="button" href="/account">Back to your account</a></p>`,
})
const BY_CODE: Readonly<Record<string, (returnTo: string) => { title: string; body: SafeHtml }>> = {
  'step-up.required': confirmAgain,
  'oidc.step_up.required': confirmAgain,
  'oidc.confirmation.refused': () => ({
    title: 'The identity provider did not confirm it just now',
    body: html`<p>This action needs a sign-in at the identity provider made just now. The provider reported
      an earlier sign-in (or none at all), so nothing was changed. Try again, and sign in when the provider asks.</p>
      <p><a class="button" href="/account">Back to your account</a></p>`,
  }),
  'oauth.account.link_conflict': () => ({
    title: 'That identity belongs to another account',
    body: html`<p>The identity you signed in with at the provider already signs in to another account of this
      app, so it cannot be linked to this one. Sign in with it to use that account, or unlink it there first.</p>
      <p><a class="button" href="/account">Back to your account</a></p>`,
  }),
  'oidc.account.not_linked': () => ({
    title: 'No account uses that identity',
    body: html`<p>The identity you signed in with at the provider is not linked to an account here. Sign in
      another way and link it on your account page.</p>
      <p><a class="button" href="${SIGN_IN_PATH}">Sign in</a></p>`,
  }),
  'local.csrf_refused': () => ({
    title: 'The form could not be verified',
    body: html`<p>The form was sent from another site, or from a page that is too old. Nothing was changed.
      Open the page again and send the form from there.</p><p><a href="/">Home</a></p>`,
  }),
  'keys.users_only': () => ({
    title: 'For people only',
    body: html`<p>API keys belong to people: sign in with your account to manage them.</p>`,
  }),
}

function explanation(
  problem: Problem,
  request: Request,
  signedIn: boolean,
): { title: string; body: SafeHtml } {
  const returnTo = encodeURIComponent(request.originalUrl)
  const known = problem.code === undefined ? undefined : BY_CODE[problem.code]
  if (known !== undefined) return known(returnTo)
  switch (problem.status) {
    case 401:
      return signedIn
        ? {
            title: 'Your sign-in does not reach this page',
            body: html`<p>You are signed in, but this page needs another kind of sign-in than yours.</p>
              <p><a href="/">Home</a></p>`,
          }
        : {
            title: 'Sign in required',
            body: html`<p>This page needs you to be signed in, and you are not (or your sign-in has ended).</p>
              <p><a class="button" href="${SIGN_IN_PATH}?return_to=${returnTo}">Sign in</a></p>`,
          }
    case 403:
      return request.path.startsWith('/tenants')
        ? {
            title: 'Permission denied',
            body: html`<p>You are signed in, but your account has no role here that allows this page. Changing the
              address (another tenant) does not change what your account may see.</p>
              <p><a href="/tenants">Back to your tenants</a></p>`,
          }
        : {
            title: 'Permission denied',
            body: html`<p>This is not allowed for your account. Nothing was changed.</p><p><a href="/">Home</a></p>`,
          }
    case 404:
      return { title: 'Not found', body: html`<p>There is nothing here.</p><p><a href="/">Home</a></p>` }
    case 409:
      return {
        title: 'That changed meanwhile',
        body: html`<p>Something this request relied on changed in the meantime. Nothing was changed; open the page
          again and retry.</p><p><a href="/">Home</a></p>`,
      }
    case 413:
      return {
        title: 'Too large',
        body: html`<p>The form sent more than this page accepts. Nothing was changed; go back and shorten it.</p>`,
      }
    case 429:
      return {
        title: 'Too many attempts',
        body: html`<p>Too many attempts in a short time. Wait a few minutes and try again.</p>`,
      }
    case 503:
      return {
        title: 'Temporarily unavailable',
        body: html`<p>A service this page needs did not answer. Nobody was signed out; try again shortly.</p>`,
      }
    default:
      return { title: 'Something went wrong', body: html`<p>The request could not be completed.</p>` }
  }
}

/** The status and code of a refusal, for developers only (folded away). */
export const developerDetails = (status: number, code: string | undefined): SafeHtml =>
  html`<details class="developer"><summary>Details for developers</summary>
    <p>HTTP status ${status}${code ? html`, problem code <code>${code}</code>` : ''}</p></details>`

/**
 * For browsers: Portcullis answers refusals with `application/problem+json`, which a person should not
 * have to read. When the request prefers HTML, the problem is rendered as a page with the same status,
 * under a header that shows the real session (checked here when the route read none), and in words; the
 * status and stable code are folded away for developers. API clients keep the problem+json body.
 */
export const htmlProblemPages =
  (security: Pick<Security, 'evaluation' | 'evaluator'>, directory: DemoDirectory): RequestHandler =>
  (request, response, next) => {
    if (request.accepts(['json', 'html']) !== 'html') {
      next()
      return
    }
    const send = response.send.bind(response)
    response.send = (body?: unknown) => {
      const type = response.getHeader('Content-Type')
      if (
        typeof type !== 'string' ||
        !type.startsWith('application/problem+json') ||
        typeof body !== 'string'
      ) {
        return send(body)
      }
      let problem: Problem = {}
      try {
        problem = JSON.parse(body) as Problem
      } catch {
        // not our problem body: render the generic page
      }
      const status = response.statusCode
      void sessionViewer(security, request, directory).then((viewer) => {
        const { title, body: content } = explanation(problem, request, viewer !== undefined)
        response.type('html')
        send(
          layout({
            title,
            area: 'none',
            viewer,
            body: html`${content}${developerDetails(status, problem.code)}`,
          }).toString(),
        )
      })
      return response
    }
    next()
  }
