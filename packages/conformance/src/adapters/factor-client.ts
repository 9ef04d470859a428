import { totpCodeAt } from '@portcullis/totp'
import { PASSWORD, SAME_ORIGIN, SESSION_COOKIE } from './account-world.js'
import { type Answer, call } from './http-client.js'

/**
 * A browser of the second-factor cases: a cookie jar (what the server set, minus what it cleared) and
 * same-origin JSON requests. `cookie` in `headers` replaces the jar for one request.
 */
export interface Browser {
  readonly url: string
  readonly cookies: Map<string, string>
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>
  get(path: string, headers?: Record<string, string>): Promise<Answer>
  /** The jar as a `Cookie` header, with `replace` values instead of the jar's. */
  cookieHeader(replace?: Record<string, string>): string
}

export function browser(url: string): Browser {
  const cookies = new Map<string, string>()
  const keep = (answer: Answer) => {
    for (const line of answer.setCookies) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      const name = pair.slice(0, at)
      if (/;\s*max-age=0\b/i.test(line)) cookies.delete(name)
      else cookies.set(name, pair.slice(at + 1))
    }
    return answer
  }
  const cookieHeader = (replace: Record<string, string> = {}) =>
    [...new Map([...cookies, ...Object.entries(replace)])]
      .map(([name, value]) => `${name}=${value}`)
      .join('; ')
  const send = async (method: string, path: string, body: unknown, headers: Record<string, string>) =>
    keep(
      await call(url, path, {
        method,
        headers: {
          ...SAME_ORIGIN,
          accept: 'application/json',
          ...(cookies.size === 0 ? {} : { cookie: cookieHeader() }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    )
  return {
    url,
    cookies,
    cookieHeader,
    post: (path, body, headers = {}) => send('POST', path, body, headers),
    get: (path, headers = {}) => send('GET', path, undefined, headers),
  }
}

/** Registers `username` and signs in with the password: a browser holding the session cookie. */
export async function signedInBrowser(url: string, username = 'alice'): Promise<Browser> {
  const client = browser(url)
  const credentials = { username, password: PASSWORD }
  const registered = await client.post('/auth/register', credentials)
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}`)
  const login = await client.post('/auth/login', credentials)
  if (login.status !== 200 || !client.cookies.has(SESSION_COOKIE)) {
    throw new Error(`login answered ${login.status}`)
  }
  return client
}

/** A password step-up of `purpose` over HTTP: the one-use credential (for the step-up header). */
export async function passwordStepUp(client: Browser, purpose: string): Promise<string> {
  const answer = await client.post(`/auth/step-up/${purpose}`, { password: PASSWORD })
  if (answer.status !== 200) throw new Error(`password step-up answered ${answer.status}: ${answer.text}`)
  return (answer.json() as { stepUpToken: string }).stepUpToken
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** RFC 4648 base32 (what the enrollment answers as `secret`) to bytes. */
export function base32Bytes(text: string): Uint8Array {
  let bits = 0
  let value = 0
  const out: number[] = []
  for (const character of text.replace(/=+$/, '').toUpperCase()) {
    const index = BASE32.indexOf(character)
    if (index === -1) throw new Error('not base32')
    value = (value << 5) | index
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff)
      bits -= 8
    }
  }
  return Uint8Array.from(out)
}

/** The code an authenticator app shows for the enrolled `secret` at `now`. */
export function codeFor(secret: string, now: number): string {
  return totpCodeAt(base32Bytes(secret), now)
}
