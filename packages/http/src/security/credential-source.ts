import type { CredentialSource } from '@portcullis/core/authentication'

/** The parts of a Node request the credential source reads (`IncomingMessage` and framework requests). */
export interface RawRequestHead {
  readonly method?: string | undefined
  /** Node's raw header list: names and values alternating, duplicates kept. */
  readonly rawHeaders: readonly string[]
  /** The parsed headers; only `cookie` is read (Node joins several `Cookie` lines with `; `). */
  readonly headers: { readonly cookie?: string | undefined }
  /** The request target as received: path and query (`/a/b?c=d`). */
  readonly url?: string | undefined
}

/** Cookie header parsing: the first occurrence of a name wins, values are kept raw. */
export function parseCookies(header: string | undefined): ReadonlyMap<string, string> {
  const cookies = new Map<string, string>()
  if (header === undefined) return cookies
  for (const part of header.split(';')) {
    const index = part.indexOf('=')
    if (index <= 0) continue
    const name = part.slice(0, index).trim()
    // The first occurrence wins (the most specific path is sent first); values are kept raw.
    if (name !== '' && !cookies.has(name)) cookies.set(name, part.slice(index + 1).trim())
  }
  return cookies
}

/**
 * Every line of header `name` (lower case) joined with `, `, or undefined when absent. Reads the raw
 * header list, so copies Node would drop (a second `Authorization`) are kept and make the value malformed.
 */
export function rawHeader(rawHeaders: readonly string[], name: string): string | undefined {
  let value: string | undefined
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const key = rawHeaders[index] as string
    if (key.length === name.length && key.toLowerCase() === name) {
      const line = rawHeaders[index + 1] as string
      value = value === undefined ? line : `${value}, ${line}`
    }
  }
  return value
}

/**
 * The framework-neutral view of a request for mechanisms. A header sent several times is answered joined
 * with `, ` (even for headers Node keeps only once, such as `Authorization`), so a duplicated credential
 * is presented as malformed rather than silently picking one copy. Cookies and the path are worked out
 * only when a mechanism asks: most requests never need them.
 */
export class RawCredentialSource implements CredentialSource {
  readonly #request: RawRequestHead
  readonly #target: string | undefined
  #cookies: ReadonlyMap<string, string> | undefined

  /** `target`: the request target to take the path from, when it is not `request.url`. */
  constructor(request: RawRequestHead, target?: string) {
    this.#request = request
    this.#target = target
  }

  header(name: string): string | undefined {
    return rawHeader(this.#request.rawHeaders, name.toLowerCase())
  }

  cookie(name: string): string | undefined {
    this.#cookies ??= parseCookies(this.#request.headers.cookie)
    return this.#cookies.get(name)
  }

  get method(): string {
    return this.#request.method ?? 'GET'
  }

  get path(): string {
    const url = this.#target ?? this.#request.url ?? '/'
    const query = url.indexOf('?')
    return query === -1 ? url : url.slice(0, query)
  }
}
