import type { CredentialSource } from '@portcullis/core/authentication'
import { parseCookies } from '../security/credential-source.js'

/** The parts of a Web `Request` mechanisms read: its method, URL and headers. */
export interface WebRequestHead {
  readonly method: string
  readonly url: string
  readonly headers: Headers
}

/** The path of an absolute or origin-form request URL, without its query. */
export function pathOf(url: string): string {
  const start = url.startsWith('/') ? 0 : url.indexOf('/', url.indexOf('//') + 2)
  if (start === -1) return '/'
  const query = url.indexOf('?', start)
  const hash = url.indexOf('#', start)
  const end = Math.min(query === -1 ? url.length : query, hash === -1 ? url.length : hash)
  return url.slice(start, end)
}

/**
 * The framework-neutral view of a Web `Request` for mechanisms. `Headers` joins a header sent several
 * times with `, ` (an `Authorization` sent twice included), so a duplicated credential is presented as
 * malformed, as on the Node path. Cookies and the path are worked out only when a mechanism asks.
 */
export class WebCredentialSource implements CredentialSource {
  readonly #request: WebRequestHead
  #cookies: ReadonlyMap<string, string> | undefined

  constructor(request: WebRequestHead) {
    this.#request = request
  }

  header(name: string): string | undefined {
    return this.#request.headers.get(name) ?? undefined
  }

  cookie(name: string): string | undefined {
    this.#cookies ??= parseCookies(this.#request.headers.get('cookie') ?? undefined)
    return this.#cookies.get(name)
  }

  get method(): string {
    return this.#request.method
  }

  get path(): string {
    return pathOf(this.#request.url)
  }
}
