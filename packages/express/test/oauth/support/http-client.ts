// A cookie-keeping HTTP client over real loopback HTTP: one instance is one browser (or one API client).
// It never follows redirects by itself; `navigate` follows an application redirect through the real IdP
// (with the IdP's own cookie jar) back to the application's callback, as a browser would.

export interface Sent {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The parsed body for JSON and problem+json answers. */
  readonly body: Record<string, unknown>
  readonly setCookies: readonly string[]
}

export interface RequestOptions {
  readonly method?: string
  readonly headers?: Record<string, string>
  /** Sent as JSON. */
  readonly json?: unknown
  /** Sent as a form. */
  readonly form?: Record<string, string>
  /** Send `Accept: application/json`. */
  readonly wantsJson?: boolean
  /** Do not send the cookie jar. */
  readonly withoutCookies?: boolean
}

/** Every response the application gave any client, for assertions across tests (`Cache-Control`). */
export const applicationResponses: { path: string; status: number; cacheControl: string | null }[] = []

export class HttpClient {
  readonly cookies = new Map<string, string>()
  readonly #origin: string

  constructor(origin: string) {
    this.#origin = origin
  }

  get origin(): string {
    return this.#origin
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }

  /** The cookie whose name starts with `prefix`, if any. */
  cookieStartingWith(prefix: string): [string, string] | undefined {
    return [...this.cookies].find(([name]) => name.startsWith(prefix))
  }

  async request(path: string, options: RequestOptions = {}): Promise<Sent> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) }
    if (options.wantsJson === true) headers.accept = 'application/json'
    else headers.accept ??= 'text/html,application/xhtml+xml,*/*;q=0.8'
    if (!options.withoutCookies && this.cookies.size > 0) {
      headers.cookie = [headers.cookie, this.cookieHeader()].filter(Boolean).join('; ')
    }
    let body: string | undefined
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(options.json)
    } else if (options.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      body = new URLSearchParams(options.form).toString()
    }
    const response = await fetch(new URL(path, this.#origin), {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      redirect: 'manual',
      ...(body === undefined ? {} : { body }),
    })
    const text = await response.text()
    const setCookies = response.headers.getSetCookie()
    this.#store(setCookies)
    applicationResponses.push({
      path: new URL(path, this.#origin).pathname,
      status: response.status,
      cacheControl: response.headers.get('cache-control'),
    })
    let parsed: Record<string, unknown> = {}
    if (/json/.test(response.headers.get('content-type') ?? '') && text !== '') parsed = JSON.parse(text)
    return { status: response.status, headers: response.headers, text, body: parsed, setCookies }
  }

  post(path: string, options: RequestOptions = {}): Promise<Sent> {
    return this.request(path, { method: 'POST', ...options })
  }

  #store(lines: readonly string[]): void {
    for (const line of lines) {
      const [pair = '', ...attributes] = line.split(';')
      const index = pair.indexOf('=')
      if (index <= 0) continue
      const name = pair.slice(0, index).trim()
      const value = pair.slice(index + 1).trim()
      const expired = attributes.some((attribute) => /^\s*max-age=(0|-\d+)\s*$/i.test(attribute))
      if (expired || value === '') this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }
}

/** `name=value; A; B=c` -> `{ name, value, attributes: { a: true, b: 'c' } }` (attribute names lower case). */
export function parseSetCookie(line: string): {
  name: string
  value: string
  attributes: Record<string, string | true>
} {
  const [pair = '', ...rest] = line.split(';')
  const index = pair.indexOf('=')
  const attributes: Record<string, string | true> = {}
  for (const attribute of rest) {
    const [key = '', ...value] = attribute.trim().split('=')
    attributes[key.toLowerCase()] = value.length === 0 ? true : value.join('=')
  }
  return { name: pair.slice(0, index).trim(), value: pair.slice(index + 1).trim(), attributes }
}
