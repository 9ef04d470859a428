import type { CredentialSource } from '@portcullis/core/authentication'
import type { Request } from 'express'

function parseCookies(header: string | undefined): ReadonlyMap<string, string> {
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
 * The framework-neutral view of an Express request. A header sent several times is answered joined with
 * `, ` (even for headers Node keeps only once, such as `Authorization`), so a duplicated credential is
 * presented as malformed rather than silently picking one copy. Cookies and the path are worked out only
 * when a mechanism asks: most requests never need them.
 */
class ExpressCredentialSource implements CredentialSource {
  readonly #request: Request
  #cookies: ReadonlyMap<string, string> | undefined

  constructor(request: Request) {
    this.#request = request
  }

  header(name: string): string | undefined {
    return singleHeader(this.#request, name.toLowerCase())
  }

  cookie(name: string): string | undefined {
    this.#cookies ??= parseCookies(this.#request.headers.cookie)
    return this.#cookies.get(name)
  }

  get method(): string {
    return this.#request.method
  }

  get path(): string {
    const url = this.#request.originalUrl
    const query = url.indexOf('?')
    return query === -1 ? url : url.slice(0, query)
  }
}

export function credentialSource(request: Request): CredentialSource {
  return new ExpressCredentialSource(request)
}

/**
 * Every line of header `name` (lower case) joined with `, `, or undefined when absent. Reads the raw
 * header list, so copies Node would drop (a second `Authorization`) are kept and make the value malformed.
 */
export function singleHeader(request: Request, name: string): string | undefined {
  const raw = request.rawHeaders
  let value: string | undefined
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const key = raw[index] as string
    if (key.length === name.length && key.toLowerCase() === name) {
      const line = raw[index + 1] as string
      value = value === undefined ? line : `${value}, ${line}`
    }
  }
  return value
}
