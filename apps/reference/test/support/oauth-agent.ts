import { totpCodeAt } from '@portcullis/totp'
import { Jar, step } from './cookie-jar.js'

/** What an MCP client's OAuth provider keeps (the same shape for the 1.x and the 2.x SDK). */
export interface AgentState {
  clientInformation: Record<string, unknown> | undefined
  tokens: { access_token: string; refresh_token?: string; token_type: string } | undefined
  codeVerifier: string
  authorizationUrl: URL | undefined
}

/**
 * The `OAuthClientProvider` of a test agent: it keeps what the SDK hands it and records the
 * authorization URL the SDK "opens in a browser" (the test then drives that browser over HTTP).
 * `clientMetadataUrl` set: a Client ID Metadata Document; unset: RFC 7591 registration.
 */
export class AgentOAuth {
  readonly saved: AgentState = {
    clientInformation: undefined,
    tokens: undefined,
    codeVerifier: '',
    authorizationUrl: undefined,
  }
  readonly clientMetadataUrl: string | undefined

  constructor(
    readonly redirectUrl: string,
    readonly name: string,
    clientMetadataUrl?: string,
  ) {
    this.clientMetadataUrl = clientMetadataUrl
  }

  get clientMetadata() {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }

  clientInformation() {
    return this.saved.clientInformation as never
  }

  saveClientInformation(information: Record<string, unknown>) {
    this.saved.clientInformation = information
  }

  tokens() {
    return this.saved.tokens as never
  }

  saveTokens(tokens: AgentState['tokens']) {
    this.saved.tokens = tokens
  }

  redirectToAuthorization(url: URL) {
    this.saved.authorizationUrl = url
  }

  saveCodeVerifier(verifier: string) {
    this.saved.codeVerifier = verifier
  }

  codeVerifier() {
    return this.saved.codeVerifier
  }
}

const hidden = (html: string): Record<string, string> => {
  const fields: Record<string, string> = {}
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1] as string] = (match[2] as string).replaceAll('&amp;', '&').replaceAll('&#39;', "'")
  }
  return fields
}

export interface SignInAs {
  readonly username: string
  readonly password: string
  /** The account's TOTP secret: the password sign-in then asks for a code. */
  readonly totpSecret?: string
}

/**
 * A browser over HTTP (fetch, one cookie jar): follows the authorization URL through the app's sign-in
 * (password, then the TOTP code), its consent page (approve), back to the client's redirect URI, and
 * returns that URL (with `code`, `state` and `iss`). What it saw on the way is kept for assertions.
 */
export class AgentBrowser {
  readonly jar = new Jar()
  readonly consentPages: string[] = []
  readonly visited: string[] = []

  constructor(readonly origin: string) {}

  async authorize(authorizationUrl: URL, user: SignInAs, redirectUrl: string): Promise<URL> {
    let next = authorizationUrl.href
    for (let hop = 0; hop < 20; hop += 1) {
      const response = await step(this.jar, next, { headers: { accept: 'text/html' } })
      this.visited.push(new URL(next).pathname)
      if (response.status >= 300 && response.status < 400) {
        const target = new URL(response.headers.get('location') ?? '', next)
        if (target.href.startsWith(redirectUrl)) return target
        next = target.href
        continue
      }
      const page = await response.text()
      if (response.status !== 200)
        throw new Error(`${next} answered ${response.status}: ${page.slice(0, 300)}`)
      const path = new URL(next).pathname
      if (path === '/sign-in') next = await this.#signIn(page, user)
      else if (path.includes('/interaction/')) next = await this.#approve(page, next)
      else throw new Error(`unexpected page ${path}`)
    }
    throw new Error('too many hops')
  }

  async #post(path: string, fields: Record<string, string>): Promise<Response> {
    return step(this.jar, new URL(path, this.origin).href, {
      method: 'POST',
      headers: {
        origin: this.origin,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'text/html',
      },
      body: new URLSearchParams(fields).toString(),
    })
  }

  async #signIn(page: string, user: SignInAs): Promise<string> {
    const returnTo = hidden(page).return_to ?? '/'
    let response = await this.#post('/sign-in', {
      username: user.username,
      password: user.password,
      return_to: returnTo,
    })
    if (user.totpSecret !== undefined) {
      if (response.status !== 200) throw new Error(`expected the second step, got ${response.status}`)
      const second = hidden(await response.text())
      response = await this.#post('/sign-in/second-factor', {
        ...second,
        code: totpCodeAt(user.totpSecret, Date.now()),
      })
    }
    if (response.status !== 303) throw new Error(`sign-in answered ${response.status}`)
    return new URL(response.headers.get('location') ?? '/', this.origin).href
  }

  async #approve(page: string, at: string): Promise<string> {
    this.consentPages.push(page)
    // The consent form (the page's layout has forms of its own, such as Sign out).
    const action = /<form method="post" action="([^"]*\/interaction\/[^"]+)"/.exec(page)?.[1]
    if (action === undefined) throw new Error('no consent form')
    const start = page.indexOf(`action="${action}"`)
    const form = page.slice(start, page.indexOf('</form>', start))
    const response = await step(this.jar, new URL(action.replaceAll('&amp;', '&'), at).href, {
      method: 'POST',
      headers: { origin: this.origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...hidden(form), decision: 'approve' }).toString(),
    })
    if (response.status !== 303 && response.status !== 302) {
      throw new Error(`consent answered ${response.status}: ${(await response.text()).slice(0, 300)}`)
    }
    return new URL(response.headers.get('location') ?? '', at).href
  }
}
