// ─────────────────────────────────────────────────────────────────────────────────────────────────────────
// DEMO STAND-IN. Signs a demo user in with one click so the pages that need a user can be shown before the
// local-accounts routes exist. The local-accounts step deletes this module and registers
// `LocalAccounts.mechanisms` instead: its session mechanism has the same name (`session`), so every route
// policy (`required('session')`) stays as it is, and `/sign-in` / `/sign-out` become its routes.
// It is deliberately small: an HMAC-signed cookie naming the account, CSRF-checked like the real session.
// ─────────────────────────────────────────────────────────────────────────────────────────────────────────
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import {
  type AuthenticationMechanism,
  authenticated,
  type CredentialSource,
  invalid,
  none,
} from '@portcullis/core/authentication'
import { checkCsrf, csrfTokenForSession, type SecurityEventSink } from '@portcullis/core/local-accounts'
import { anonymous, required } from '@portcullis/core/policy'
import type { SecureRouter, Security } from '@portcullis/express'
import express, { type Request, type Response } from 'express'
import { DEMO_USERS, type DemoDirectory } from '../directory/demo-directory.js'
import { html } from '../layout/html.js'
import { SIGN_IN_PATH, SIGN_OUT_PATH, sendPage, viewerOf } from '../layout/layout.js'

export const SESSION_MECHANISM = 'session'
const LIFETIME_SECONDS = 8 * 3600
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE'])
const MAC_LABEL = 'portcullis-reference-demo-session.v1'

export interface DemoSignInOptions {
  readonly key: Uint8Array
  readonly directory: DemoDirectory
  /** The app's public origin: the CSRF target and whether the cookie is `Secure`. */
  readonly publicOrigin: string
  /** Other origins the app is reached at (`http://localhost:<port>` next to `127.0.0.1`). */
  readonly trustedOrigins: readonly string[]
  readonly events: SecurityEventSink
  readonly clock?: () => number
}

/** `return_to` stays on this site: a path, never `//host` or a scheme. */
function safeReturn(value: unknown): string {
  if (typeof value !== 'string' || value.length > 512 || !/^\/(?![/\\])/.test(value)) return '/'
  return value
}

export class DemoSignIn {
  readonly mechanism: AuthenticationMechanism
  readonly cookieName: string
  readonly #options: DemoSignInOptions
  readonly #secure: boolean
  readonly #clock: () => number

  constructor(options: DemoSignInOptions) {
    this.#options = options
    this.#secure = options.publicOrigin.startsWith('https:')
    this.cookieName = this.#secure ? '__Host-portcullis-demo-session' : 'portcullis-demo-session'
    this.#clock = options.clock ?? Date.now
    for (const user of DEMO_USERS) options.directory.bind(`demo-${user.username}`, user.username)
    this.mechanism = {
      name: SESSION_MECHANISM,
      securityScheme: {
        type: 'apiKey',
        in: 'cookie',
        name: this.cookieName,
        description: 'Demo sign-in stand-in',
      },
      authenticate: (source) => this.#authenticate(source),
    }
  }

  /** A signed cookie value for `username` (what `POST /sign-in` sets; tests use it directly). */
  issue(username: string): string {
    const accountId = Buffer.from(`demo-${username}`).toString('base64url')
    const body = `${accountId}.${Math.floor(this.#clock() / 1000)}.${randomBytes(12).toString('base64url')}`
    return `${body}.${this.#mac(body)}`
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#options.key).update(`${MAC_LABEL}|${body}`).digest('base64url')
  }

  #csrf(source: Pick<CredentialSource, 'method' | 'header'>, sessionId?: string) {
    return checkCsrf({
      method: source.method,
      secFetchSite: source.header('sec-fetch-site'),
      origin: source.header('origin'),
      targetOrigin: this.#options.publicOrigin,
      trustedOrigins: this.#options.trustedOrigins,
      presentedToken: source.header('x-csrf-token'),
      ...(sessionId === undefined ? {} : { expectedToken: csrfTokenForSession(sessionId) }),
    })
  }

  #authenticate(source: CredentialSource) {
    const value = source.cookie(this.cookieName)
    if (value === undefined) return none()
    const [accountPart = '', issued = '', nonce = '', mac = '', ...extra] = value.split('.')
    const expected = Buffer.from(this.#mac(`${accountPart}.${issued}.${nonce}`))
    const presented = Buffer.from(mac)
    if (extra.length > 0 || presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      return invalid('demo-session: bad signature')
    }
    const issuedAt = Number(issued)
    const now = this.#clock() / 1000
    if (!Number.isInteger(issuedAt) || issuedAt > now + 60 || issuedAt + LIFETIME_SECONDS <= now) {
      return invalid('demo-session: expired')
    }
    const accountId = Buffer.from(accountPart, 'base64url').toString('utf8')
    if (this.#options.directory.user(accountId) === undefined) return invalid('demo-session: unknown account')
    if (!SAFE_METHODS.has(source.method.toUpperCase())) {
      const decision = this.#csrf(source, value)
      if (!decision.ok) {
        this.#options.events({
          type: 'csrf.refused',
          at: new Date(this.#clock()),
          reason: decision.reason,
          method: source.method,
          accountId,
        })
        return invalid(`demo-session: ${decision.reason}`)
      }
    }
    return authenticated(
      { id: accountId, kind: 'user' },
      {
        mechanism: SESSION_MECHANISM,
        credentialType: 'demo-session',
        attributes: { sessionHandle: handleOf(value) },
        expiresAt: new Date((issuedAt + LIFETIME_SECONDS) * 1000),
      },
    )
  }

  #cookie(value: string, maxAge: number): string {
    return `${this.cookieName}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${this.#secure ? '; Secure' : ''}`
  }

  /** `GET /sign-in` (pick a demo user), `POST /sign-in`, `POST /sign-out`. */
  routes(security: Pick<Security, 'router'>): SecureRouter {
    const router = security.router()
    const form = express.urlencoded({ extended: false, limit: '2kb' })
    const { directory, events } = this.#options
    router.get(SIGN_IN_PATH, { auth: anonymous() }, (request, response) => {
      const returnTo = safeReturn(request.query.return_to)
      sendPage(response, {
        title: 'Sign in',
        area: 'sign-in',
        viewer: undefined,
        body: html`<p class="notice warning"><strong>Demo stand-in.</strong> Pick a demo user: no password is asked.
          The local-accounts routes replace this page with username and password sign-in (argon2id, sessions,
          CSRF protection); every page and route policy stays the same.</p>
          <div class="grid">${DEMO_USERS.map(
            (user) => html`<form method="post" action="${SIGN_IN_PATH}" class="card">
              <input type="hidden" name="username" value="${user.username}">
              <input type="hidden" name="return_to" value="${returnTo}">
              <p><strong>${user.displayName}</strong> <span class="muted">(${user.username})</span><br>
              <span class="muted">${user.summary}</span></p>
              <button type="submit">Sign in as ${user.displayName.split(' ')[0]}</button>
            </form>`,
          )}</div>`,
      })
    })
    router.post(SIGN_IN_PATH, { auth: anonymous() }, form, (request: Request, response: Response) => {
      const decision = this.#csrf({ method: 'POST', header: (name) => request.get(name) })
      const body = (request.body ?? {}) as Record<string, unknown>
      const user = DEMO_USERS.find((candidate) => candidate.username === body.username)
      if (!decision.ok || user === undefined) {
        response
          .status(decision.ok ? 400 : 403)
          .type('text/plain')
          .send(decision.ok ? 'unknown demo user' : 'cross-site request refused')
        return
      }
      const value = this.issue(user.username)
      const at = new Date(this.#clock())
      const accountId = `demo-${user.username}`
      const clientAddress = request.ip
      events({ type: 'login.succeeded', at, accountId, ...(clientAddress ? { clientAddress } : {}) })
      events({
        type: 'session.created',
        at,
        accountId,
        sessionHandle: handleOf(value),
        ...(clientAddress ? { clientAddress } : {}),
      })
      response.setHeader('Set-Cookie', this.#cookie(value, LIFETIME_SECONDS))
      response.redirect(303, safeReturn(body.return_to))
    })
    router.post(SIGN_OUT_PATH, { auth: required(SESSION_MECHANISM) }, (request, response) => {
      const viewer = viewerOf(request.security, directory)
      const handle = request.security.evidence[0]?.attributes?.sessionHandle
      if (viewer !== undefined && typeof handle === 'string') {
        events({
          type: 'session.revoked',
          at: new Date(this.#clock()),
          accountId: viewer.accountId,
          sessionHandle: handle,
          reason: 'logout',
        })
      }
      response.setHeader('Set-Cookie', this.#cookie('', 0))
      response.redirect(303, '/')
    })
    return router
  }
}

/** A non-secret handle of a session for events: a digest prefix, never the cookie. */
function handleOf(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 16)
}
