import { createHash, randomBytes } from 'node:crypto'

/** PKCE S256 pair. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/** A cookie jar for one user agent (paths ignored: everything lives under one issuer). */
export class Browser {
  readonly #cookies = new Map<string, string>()

  async get(url: string): Promise<Response> {
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: this.#header() } })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const index = pair.indexOf('=')
      const name = pair.slice(0, index)
      const value = pair.slice(index + 1)
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.#cookies.delete(name)
      else this.#cookies.set(name, value)
    }
    return response
  }

  #header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }
}

export interface AuthorizeRequest {
  readonly clientId: string
  readonly redirectUri: string
  readonly scope?: string
  readonly resource?: string | readonly string[]
  /** Defaults to a fresh S256 challenge; `null` omits PKCE. */
  readonly challenge?: string | null
  readonly challengeMethod?: string
}

export interface AuthorizeOutcome {
  /** The final redirect's URL (to the client's redirect URI), or undefined when the server answered itself. */
  readonly redirect: URL | undefined
  readonly code: string | undefined
  readonly verifier: string
  /** The last response (the error page when there was no redirect to the client). */
  readonly response: Response
}

/** Follows the authorization request through the interaction to the redirect back to the client. */
export async function authorize(
  issuer: string,
  request: AuthorizeRequest,
  browser = new Browser(),
): Promise<AuthorizeOutcome> {
  const { verifier, challenge } = pkce()
  const url = new URL(`${issuer}/auth`)
  url.searchParams.set('client_id', request.clientId)
  url.searchParams.set('response_type', 'code')
  url.searchParams.set('redirect_uri', request.redirectUri)
  url.searchParams.set('scope', request.scope ?? 'notes:read')
  url.searchParams.set('state', randomBytes(8).toString('hex'))
  const resources = request.resource === undefined ? [] : ([] as string[]).concat(request.resource)
  for (const resource of resources) url.searchParams.append('resource', resource)
  if (request.challenge !== null) {
    url.searchParams.set('code_challenge', request.challenge ?? challenge)
    url.searchParams.set('code_challenge_method', request.challengeMethod ?? 'S256')
  }
  let next = url.href
  for (let hop = 0; hop < 10; hop += 1) {
    const response = await browser.get(next)
    const location = response.headers.get('location')
    if (response.status < 300 || response.status >= 400 || location === null) {
      return { redirect: undefined, code: undefined, verifier, response }
    }
    const target = new URL(location, next)
    if (!target.href.startsWith(`${issuer}/`)) {
      await response.body?.cancel()
      return { redirect: target, code: target.searchParams.get('code') ?? undefined, verifier, response }
    }
    next = target.href
  }
  throw new Error('too many redirects')
}

export interface TokenResponse {
  readonly status: number
  readonly body: Record<string, unknown>
}

/** POSTs a form to the token (or another) endpoint. */
export async function postForm(url: string, form: Record<string, string>): Promise<TokenResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  })
  const text = await response.text()
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) }
}

export const redeemCode = (
  issuer: string,
  clientId: string,
  redirectUri: string,
  code: string,
  verifier?: string,
  extra: Record<string, string> = {},
) =>
  postForm(`${issuer}/token`, {
    grant_type: 'authorization_code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code,
    ...(verifier === undefined ? {} : { code_verifier: verifier }),
    ...extra,
  })

export const refresh = (
  issuer: string,
  clientId: string,
  refreshToken: string,
  extra: Record<string, string> = {},
) =>
  postForm(`${issuer}/token`, {
    grant_type: 'refresh_token',
    client_id: clientId,
    refresh_token: refreshToken,
    ...extra,
  })
