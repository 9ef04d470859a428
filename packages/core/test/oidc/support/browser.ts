// A minimal browser for driving authorization flows with `fetch`: follows redirects by hand, keeps the
// IdP's cookies, and stops at the first redirect to the application's callback (which it never fetches).

export class TestBrowser {
  readonly #cookies = new Map<string, string>()
  /** Every URL visited, for assertions on the authorization request. */
  readonly visited: URL[] = []

  /**
   * Follows the authorization URL through the IdP until it redirects to a URL starting with
   * `callbackPrefix`; returns that callback URL. Fails on any non-redirect answer.
   */
  async authorize(authorizationUrl: string, callbackPrefix: string): Promise<URL> {
    let url = new URL(authorizationUrl)
    for (let hop = 0; hop < 20; hop += 1) {
      this.visited.push(url)
      const response = await fetch(url, { redirect: 'manual', headers: this.#cookieHeader() })
      this.#store(response)
      const location = response.headers.get('location')
      if (response.status < 300 || response.status >= 400 || location === null) {
        const body = await response.text()
        throw new Error(`IdP answered ${response.status} at ${url.pathname}: ${body.slice(0, 300)}`)
      }
      await response.body?.cancel()
      const next = new URL(location, url)
      if (next.href.startsWith(callbackPrefix)) return next
      url = next
    }
    throw new Error('too many redirects')
  }

  /** Forgets the IdP session (a fresh browser). */
  clearCookies(): void {
    this.#cookies.clear()
  }

  #cookieHeader(): Record<string, string> {
    if (this.#cookies.size === 0) return {}
    return { cookie: [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ') }
  }

  #store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';')
      const index = pair.indexOf('=')
      if (index <= 0) continue
      const name = pair.slice(0, index).trim()
      const value = pair.slice(index + 1).trim()
      const expired = attributes.some((attribute) => {
        const [key = '', raw = ''] = attribute.trim().split('=')
        return (
          (key.toLowerCase() === 'expires' && Date.parse(raw) < Date.now()) ||
          (key.toLowerCase() === 'max-age' && Number(raw) <= 0)
        )
      })
      if (expired || value === '') this.#cookies.delete(name)
      else this.#cookies.set(name, value)
    }
  }
}
