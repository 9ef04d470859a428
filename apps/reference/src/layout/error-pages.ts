import { readFileSync } from 'node:fs'
import type { Request, RequestHandler } from 'express'
import type { DemoDirectory } from '../directory/demo-directory.js'
import { html, type SafeHtml } from './html.js'
import { layout, PASSKEYS_SCRIPT_PATH, SIGN_IN_PATH, STYLESHEET_PATH, viewerOf } from './layout.js'

const ASSETS: ReadonlyMap<string, { readonly type: string; readonly text: string }> = new Map([
  [
    STYLESHEET_PATH,
    { type: 'text/css', text: readFileSync(new URL('./portcullis.css', import.meta.url), 'utf8') },
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

function explanation(problem: Problem, request: Request): { title: string; body: SafeHtml } {
  const returnTo = encodeURIComponent(request.originalUrl)
  if (problem.code === 'step-up.required') {
    return {
      title: 'Confirmation required',
      body: html`<p>This action needs a fresh confirmation (a one-use step-up credential), and the request
        carried none, or one that was already used.</p>
        <p><a class="button" href="/account/recovery-codes">Confirm again</a></p>`,
    }
  }
  switch (problem.status) {
    case 401:
      return {
        title: 'Sign in required',
        body: html`<p>This page needs a signed-in user. Your request carried no valid sign-in.</p>
          <p><a class="button" href="${SIGN_IN_PATH}?return_to=${returnTo}">Sign in</a></p>`,
      }
    case 403:
      return {
        title: 'Permission denied',
        body: html`<p>You are signed in, but your grants do not allow this page. Portcullis decided from the
          server-side authorization snapshot; editing the URL (another tenant, another key) cannot change that.</p>
          <p><a href="/tenants">Back to your tenants</a></p>`,
      }
    case 404:
      return { title: 'Not found', body: html`<p>There is nothing here.</p><p><a href="/">Home</a></p>` }
    case 413:
      return {
        title: 'Too large',
        body: html`<p>The form sent more than this page accepts. Nothing was changed; go back and shorten it.</p>`,
      }
    case 503:
      return {
        title: 'Temporarily unavailable',
        body: html`<p>A dependency (the database or a key set) did not answer. Nobody was signed out; try again shortly.</p>`,
      }
    default:
      return { title: 'Something went wrong', body: html`<p>The request could not be completed.</p>` }
  }
}

/**
 * For browsers: Portcullis answers refusals with `application/problem+json`, which a person should not
 * have to read. When the request prefers HTML, the problem is rendered as a page with the same status
 * (the stable code stays visible for support). API clients keep the problem+json body.
 */
export const htmlProblemPages =
  (directory: DemoDirectory): RequestHandler =>
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
      const { title, body: content } = explanation(problem, request)
      response.type('html')
      return send(
        layout({
          title,
          area: 'none',
          // A 403 comes after authentication: the page still shows who is signed in.
          viewer: viewerOf(request.security, directory),
          body: html`${content}<p class="muted">Status ${response.statusCode}${problem.code ? html` · <code>${problem.code}</code>` : ''}</p>`,
        }).toString(),
      )
    }
    next()
  }
