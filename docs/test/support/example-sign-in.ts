// Signing in over HTTP as the examples with an Express server do: the account registered, then a
// same-origin `fetch` to /auth/login; later calls carry its session cookie and pass the CSRF check.
import type { LocalAccounts } from '@portcullis/core/local-accounts'

export const EXAMPLE_ORIGIN = 'http://127.0.0.1'
export const EXAMPLE_PASSWORD = 'correct horse battery'

export interface ExampleSession {
  readonly accountId: string
  readonly cookie: string
  get(path: string): Promise<Response>
  post(path: string, body?: unknown): Promise<Response>
}

/** Registers `username` with `local` and signs in at `base`. */
export async function signInOverHttp(
  base: string,
  local: LocalAccounts,
  username: string,
): Promise<ExampleSession> {
  const { accountId } = await local.register({ username, password: EXAMPLE_PASSWORD })
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: EXAMPLE_ORIGIN, 'sec-fetch-site': 'same-origin' },
    body: JSON.stringify({ username, password: EXAMPLE_PASSWORD }),
  })
  const headers = {
    cookie: (login.headers.get('set-cookie') ?? '').split(';')[0] as string,
    origin: EXAMPLE_ORIGIN,
    'sec-fetch-site': 'same-origin',
    'content-type': 'application/json',
  }
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  return {
    accountId,
    cookie: headers.cookie,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
  }
}
