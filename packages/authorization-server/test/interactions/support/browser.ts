/** A minimal browser for the tests: a cookie jar honouring cookie paths, redirects followed by hand. */
interface StoredCookie {
  readonly name: string
  readonly value: string
  readonly path: string
}

export class Browser {
  readonly origin: string
  readonly #cookies = new Map<string, StoredCookie>()

  constructor(origin: string) {
    this.origin = origin
  }

  setCookie(name: string, value: string, path = '/'): void {
    this.#cookies.set(`${name}|${path}`, { name, value, path })
  }

  deleteCookie(name: string, path?: string): void {
    for (const [key, cookie] of this.#cookies) {
      if (cookie.name === name && (path === undefined || cookie.path === path)) this.#cookies.delete(key)
    }
  }

  cookie(name: string, path?: string): string | undefined {
    for (const cookie of this.#cookies.values()) {
      if (cookie.name === name && (path === undefined || cookie.path === path)) return cookie.value
    }
    return undefined
  }

  async request(target: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(target, this.origin)
    const headers = new Headers(init.headers)
    const pairs = [...this.#cookies.values()]
      .filter(
        (cookie) =>
          url.pathname === cookie.path ||
          url.pathname.startsWith(cookie.path.endsWith('/') ? cookie.path : `${cookie.path}/`) ||
          cookie.path === '/',
      )
      .sort((a, b) => b.path.length - a.path.length)
      .map((cookie) => `${cookie.name}=${cookie.value}`)
    if (pairs.length > 0) headers.set('cookie', pairs.join('; '))
    const response = await fetch(url, { ...init, headers, redirect: 'manual' })
    for (const line of response.headers.getSetCookie()) this.#store(line)
    return response
  }

  /**
   * Follows redirects within the authorization server (`/oauth/...`) and stops at the first answer that
   * is not a redirect there: a page, or a redirect to the application or the client.
   */
  async follow(
    target: string,
    init: RequestInit = {},
  ): Promise<{ response: Response; location: string | undefined; url: string }> {
    let url = new URL(target, this.origin).href
    let response = await this.request(url, init)
    for (let hop = 0; hop < 20; hop++) {
      const location = response.headers.get('location')
      if (response.status < 300 || response.status >= 400 || location === null)
        return { response, location: undefined, url }
      const next = new URL(location, url)
      if (next.origin !== this.origin || !next.pathname.startsWith('/oauth/')) {
        await response.arrayBuffer()
        return { response, location: next.href, url }
      }
      await response.arrayBuffer()
      url = next.href
      response = await this.request(url)
    }
    throw new Error('too many redirects')
  }

  #store(line: string): void {
    const [pair = '', ...attributes] = line.split(';')
    const eq = pair.indexOf('=')
    const name = pair.slice(0, eq).trim()
    const value = pair.slice(eq + 1).trim()
    let path = '/'
    let expired = value === ''
    for (const attribute of attributes) {
      const [key = '', val = ''] = attribute.split('=')
      const lower = key.trim().toLowerCase()
      if (lower === 'path') path = val.trim()
      if (lower === 'max-age' && Number(val) <= 0) expired = true
      if (lower === 'expires' && Date.parse(val) <= Date.now()) expired = true
    }
    if (expired) this.#cookies.delete(`${name}|${path}`)
    else this.#cookies.set(`${name}|${path}`, { name, value, path })
  }
}
