import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { checkCsrf } from '@portcullis/core/local-accounts'
import { problemBody, problemFor, problems } from '@portcullis/express'
import express, { type Request, type Response } from 'express'
import { html } from '../layout/html.js'
import type { ReferenceSecrets } from '../secrets/secrets.js'
import { PortInUseError } from '../server-errors.js'
import { DEMO_IDP_PEOPLE, idpPage, loginForm, readLoginChoice } from './login-page.js'
import { Playground } from './playground.js'
import { createDemoProvider } from './provider.js'

export { DEMO_IDP_CALLBACK_PATH, DEMO_IDP_CLIENT_ID } from './provider.js'

const STYLESHEET = readFileSync(new URL('../layout/portcullis.css', import.meta.url), 'utf8')

export interface DemoIdpOptions {
  readonly host: string
  readonly port: number
  readonly secrets: ReferenceSecrets['demoIdp']
  /** The app's origins: its callback and post-logout URIs are registered for each. */
  readonly appOrigins: readonly string[]
}

export interface DemoIdp {
  readonly issuer: string
  /**
   * Fault tests: stops accepting connections (the provider and its codes stay in memory), as an IdP
   * outage looks to the app, until `resume()` listens on the same port again.
   */
  pause(): Promise<void>
  resume(): Promise<void>
  close(): Promise<void>
}

function send(response: ServerResponse, status: number, body: string, formAction = "'self'"): void {
  response.statusCode = status
  response.setHeader('Content-Type', 'text/html; charset=utf-8')
  response.setHeader('Cache-Control', 'no-store')
  response.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  )
  response.end(body)
}

/** The largest login form the demo IdP reads: 4 KiB (over it: 413 problem+json `request.body_too_large`). */
export const DEMO_IDP_MAX_FORM_BYTES = 4 * 1024

const formText = express.text({ type: () => true, limit: DEMO_IDP_MAX_FORM_BYTES })

/** The login form; rejects with the parser's 413 error when it is larger than the limit. */
function readForm(request: IncomingMessage, response: ServerResponse): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    formText(request as Request, response as Response, (error?: unknown) => {
      if (error !== undefined) reject(error)
      else resolve(new URLSearchParams(String((request as { body?: unknown }).body ?? '')))
    })
  })
}

/** A form over the limit answered as problem+json 413 `request.body_too_large`; false for other errors. */
function sentTooLarge(response: ServerResponse, error: unknown): boolean {
  const problem = problemFor(error)
  if (problem.code !== problems.bodyTooLarge.code) return false
  response.statusCode = problem.status
  response.setHeader('Content-Type', 'application/problem+json')
  response.setHeader('Cache-Control', 'no-store')
  response.end(JSON.stringify(problemBody(problem)))
  return true
}

/**
 * A real OpenID Provider (oidc-provider 9) on a loopback port, with server-rendered login pages where the
 * person chooses the demo user, the authentication time, the ACR and the AMR. It stands in for Google,
 * Entra ID, Okta... so OIDC sign-in, linking, revalidate and reauthenticate (`max_age=0`, `acr_values`)
 * work offline. Not for production: no passwords, in-memory sessions.
 */
export async function startDemoIdp(options: DemoIdpOptions): Promise<DemoIdp> {
  let handler: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) =>
    response.end()
  const server: Server = createServer((request, response) => handler(request, response))
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new PortInUseError(options.host, options.port, 'PORTCULLIS_IDP_PORT')
          : error,
      ),
    )
    server.listen(options.port, options.host, resolve)
  })
  const { port } = server.address() as AddressInfo
  const issuer = `http://${options.host}:${port}`
  const { d: _private, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = options.secrets.signingKey
  const playground = new Playground(issuer, publicJwk)
  const provider = await createDemoProvider({
    issuer,
    secrets: options.secrets,
    appOrigins: options.appOrigins,
    playgroundRedirectUri: playground.redirectUri,
  })
  const callback = provider.callback()
  const formTargets = ["'self'", ...options.appOrigins].join(' ')

  const interaction = async (request: IncomingMessage, response: ServerResponse, path: string) => {
    const uid = path.split('/')[2] ?? ''
    if (request.method === 'GET') {
      const details = await provider.interactionDetails(request, response)
      if (details.prompt.name !== 'login') {
        await provider.interactionFinished(
          request,
          response,
          { consent: {} },
          { mergeWithLastSubmission: true },
        )
        return
      }
      send(response, 200, idpPage('Sign in to the demo IdP', loginForm(details)), formTargets)
      return
    }
    const refused = !checkCsrf({
      method: 'POST',
      origin: request.headers.origin,
      secFetchSite: request.headers['sec-fetch-site'] as string | undefined,
      targetOrigin: issuer,
    }).ok
    if (refused) {
      send(response, 403, idpPage('Refused', html`<p>Cross-site form submission refused.</p>`))
      return
    }
    if (path.endsWith('/abort')) {
      await provider.interactionFinished(
        request,
        response,
        { error: 'access_denied', error_description: 'The user cancelled' },
        { mergeWithLastSubmission: false },
      )
      return
    }
    const choice = readLoginChoice(await readForm(request, response))
    if (choice === undefined || uid === '') {
      send(
        response,
        400,
        idpPage(
          'Invalid choice',
          html`<p>That choice is not offered. <a href="/interaction/${uid}">Back</a></p>`,
        ),
      )
      return
    }
    await provider.interactionFinished(
      request,
      response,
      {
        login: {
          accountId: choice.username,
          ts: Math.floor(Date.now() / 1000) - choice.authAgeSeconds,
          ...(choice.acr === undefined ? {} : { acr: choice.acr }),
          ...(choice.amr.length === 0 ? {} : { amr: [...choice.amr] }),
          remember: true,
        },
      },
      { mergeWithLastSubmission: false },
    )
  }

  const pages = async (response: ServerResponse, url: URL) => {
    if (url.pathname === '/style.css') {
      response.setHeader('Content-Type', 'text/css; charset=utf-8')
      response.end(STYLESHEET)
    } else if (url.pathname === '/' || url.pathname === '/playground') {
      const body = html`<p class="lead">Issuer <code>${issuer}</code> ·
        <a href="/.well-known/openid-configuration">discovery</a> · <a href="/jwks">keys</a></p>
        <h2>Users</h2><ul class="plain">${DEMO_IDP_PEOPLE.map((user) => html`<li>${user.displayName} <code>${user.username}</code></li>`)}</ul>
        <h2>Try a login</h2><p>The playground client runs a real authorization code flow and shows the ID token.</p>
        ${playground.form()}`
      send(response, 200, idpPage('Demo OpenID Provider', body))
    } else if (url.pathname === '/playground/start') {
      response.statusCode = 303
      response.setHeader('Location', playground.start(url.searchParams))
      response.end()
    } else {
      send(response, 200, idpPage('ID token', await playground.callback(url.searchParams)))
    }
  }

  const ownPages = new Set(['/', '/style.css', '/playground', '/playground/start', '/playground/callback'])
  handler = (request, response) => {
    const url = new URL(request.url ?? '/', issuer)
    const work = url.pathname.startsWith('/interaction/')
      ? interaction(request, response, url.pathname)
      : ownPages.has(url.pathname) && request.method === 'GET'
        ? pages(response, url)
        : undefined
    if (work === undefined) {
      callback(request, response)
      return
    }
    work.catch((error: unknown) => {
      if (!response.headersSent && sentTooLarge(response, error)) return
      if (!response.headersSent)
        send(
          response,
          400,
          idpPage(
            'Sign-in failed',
            html`<p>The sign-in could not continue (expired or unknown). Start again from the application.</p>`,
          ),
        )
      else response.destroy()
    })
  }

  let closed: Promise<void> | undefined
  return {
    issuer,
    pause() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    },
    resume() {
      return new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, options.host, () => resolve())
      })
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      return closed
    },
  }
}
