import { createHash, randomBytes } from 'node:crypto'
import { type CryptoKey, importJWK, type JWK, jwtVerify } from 'jose'
import { html, type SafeHtml } from '../layout/html.js'
import { DEMO_ACR_VALUES } from './login-page.js'

export const PLAYGROUND_CLIENT_ID = 'demo-playground'
const LIFETIME_MS = 10 * 60_000
const MAX_PENDING = 256

interface Pending {
  readonly verifier: string
  readonly nonce: string
  readonly createdAt: number
}

/**
 * The IdP's own test client: runs an authorization code flow (PKCE) against the IdP and shows the ID
 * token it got back, so the login page's choices (auth_time, acr, amr) can be seen without the app.
 */
export class Playground {
  readonly #issuer: string
  readonly #key: Promise<CryptoKey | Uint8Array>
  readonly #pending = new Map<string, Pending>()

  constructor(issuer: string, publicJwk: JWK) {
    this.#issuer = issuer
    this.#key = importJWK(publicJwk, 'RS256')
  }

  get redirectUri(): string {
    return `${this.#issuer}/playground/callback`
  }

  form(): SafeHtml {
    return html`<form method="get" action="/playground/start" class="stack card">
      <label>max_age <select name="max_age"><option value="">not sent</option><option value="0">0 (force a fresh login)</option><option value="600">600</option></select></label>
      <label>acr_values <select name="acr_values"><option value="">not sent</option>${DEMO_ACR_VALUES.map(
        (value) => html`<option value="${value}">${value}</option>`,
      )}</select></label>
      <button type="submit">Start a login</button>
    </form>`
  }

  /** The authorization URL for a new login (state, nonce and PKCE verifier kept here for 10 minutes). */
  start(query: URLSearchParams): string {
    const now = Date.now()
    for (const [state, pending] of this.#pending) {
      if (now - pending.createdAt > LIFETIME_MS || this.#pending.size >= MAX_PENDING)
        this.#pending.delete(state)
    }
    const state = randomBytes(16).toString('base64url')
    const pending = {
      verifier: randomBytes(32).toString('base64url'),
      nonce: randomBytes(16).toString('base64url'),
      createdAt: now,
    }
    this.#pending.set(state, pending)
    const url = new URL(`${this.#issuer}/auth`)
    url.search = new URLSearchParams({
      client_id: PLAYGROUND_CLIENT_ID,
      response_type: 'code',
      scope: 'openid profile email',
      redirect_uri: this.redirectUri,
      state,
      nonce: pending.nonce,
      code_challenge: createHash('sha256').update(pending.verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString()
    for (const name of ['max_age', 'acr_values']) {
      const value = query.get(name)
      if (value) url.searchParams.set(name, value)
    }
    return url.toString()
  }

  /** Exchanges the code and renders the verified ID token's claims. */
  async callback(query: URLSearchParams): Promise<SafeHtml> {
    const state = query.get('state') ?? ''
    const pending = this.#pending.get(state)
    this.#pending.delete(state)
    if (query.get('error'))
      return html`<p class="notice error">The login ended with <code>${query.get('error')}</code>.</p>`
    if (pending === undefined || !query.get('code'))
      return html`<p class="notice error">Unknown or expired login.</p>`
    const response = await fetch(`${this.#issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: query.get('code') ?? '',
        redirect_uri: this.redirectUri,
        client_id: PLAYGROUND_CLIENT_ID,
        code_verifier: pending.verifier,
      }),
    })
    const tokens = (await response.json()) as { id_token?: string }
    if (!response.ok || typeof tokens.id_token !== 'string')
      return html`<p class="notice error">The token request failed.</p>`
    const { payload } = await jwtVerify(tokens.id_token, await this.#key, {
      issuer: this.#issuer,
      audience: PLAYGROUND_CLIENT_ID,
    })
    if (payload.nonce !== pending.nonce)
      return html`<p class="notice error">The ID token's nonce does not match.</p>`
    const authTime = typeof payload.auth_time === 'number' ? payload.auth_time : undefined
    const claims: [string, string][] = [
      ['sub', String(payload.sub)],
      [
        'auth_time',
        authTime === undefined
          ? '–'
          : `${authTime} (${new Date(authTime * 1000).toISOString()}, ${Math.round(Date.now() / 1000 - authTime)} s ago)`,
      ],
      ['acr', payload.acr === undefined ? '–' : String(payload.acr)],
      ['amr', Array.isArray(payload.amr) ? payload.amr.join(' ') : '–'],
      ['name', String(payload.name ?? '–')],
    ]
    return html`<p class="notice success">Signed ID token verified with the IdP's key.</p>
      <dl class="facts card" data-testid="claims">${claims.map(([name, value]) => html`<dt>${name}</dt><dd data-claim="${name}"><code>${value}</code></dd>`)}</dl>
      <p><a href="/playground">Another login</a></p>`
  }
}
