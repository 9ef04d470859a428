import type { CredentialSource } from '../../src/authentication/mechanism.js'

/** A request view with the given (lower-case) headers, as an adapter would build it. */
export function headerSource(headers: Record<string, string> = {}): CredentialSource {
  return {
    header: (name) => headers[name.toLowerCase()],
    cookie: () => undefined,
    method: 'GET',
    path: '/',
  }
}
