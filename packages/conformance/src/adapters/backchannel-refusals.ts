// Every way a back-channel logout request can be refused, as raw HTTP requests with the answer and the
// `oauth.backchannel_logout_refused` reason each must get (OpenID Connect Back-Channel Logout 1.0,
// section 2.8: 400 for any refusal; a body over the route's limit stays 413).
import type { Check } from '../suite/suite.js'

/** A logout request, given a signed token the provider would send were it a logout token. */
export interface BackchannelRefusal {
  readonly name: string
  readonly method?: string
  readonly contentType?: string
  /** The body; `undefined` sends none. Bytes are sent without a `Content-Type` unless one is given. */
  readonly body?: (token: string) => string | Uint8Array
  /** Sends the body as a stream (chunked, no `Content-Length`). */
  readonly chunked?: boolean
  readonly status: number
  readonly code: string
  /** The `reason` of the one `oauth.backchannel_logout_refused` event it emits. */
  readonly reason: string
}

const FORM = 'application/x-www-form-urlencoded'
const form = (fields: readonly [string, string][]) => new URLSearchParams(fields).toString()
const REJECTED = 'oidc.logout_token.rejected'

export const BACKCHANNEL_REFUSALS: readonly BackchannelRefusal[] = [
  {
    name: 'a text/plain body',
    contentType: 'text/plain',
    body: (token) => form([['logout_token', token]]),
    status: 400,
    code: REJECTED,
    reason: 'content-type',
  },
  {
    name: 'a JSON body',
    contentType: 'application/json',
    body: (token) => JSON.stringify({ logout_token: token }),
    status: 400,
    code: REJECTED,
    reason: 'content-type',
  },
  {
    name: 'malformed JSON',
    contentType: 'application/json',
    body: () => '{"logout_token":',
    status: 400,
    code: REJECTED,
    reason: 'content-type',
  },
  {
    name: 'a body without a Content-Type',
    body: (token) => new TextEncoder().encode(form([['logout_token', token]])),
    status: 400,
    code: REJECTED,
    reason: 'content-type',
  },
  {
    name: 'logout_token twice',
    contentType: FORM,
    body: (token) =>
      form([
        ['logout_token', token],
        ['logout_token', token],
      ]),
    status: 400,
    code: REJECTED,
    reason: 'logout_token-count',
  },
  {
    name: 'another form field twice',
    contentType: FORM,
    body: (token) =>
      form([
        ['logout_token', token],
        ['state', 'a'],
        ['state', 'b'],
      ]),
    status: 400,
    code: REJECTED,
    reason: 'form-malformed',
  },
  {
    name: 'a form that is not UTF-8',
    contentType: FORM,
    body: () => Uint8Array.from([...new TextEncoder().encode('logout_token=a'), 0xff, 0xfe]),
    status: 400,
    code: REJECTED,
    reason: 'form-malformed',
  },
  {
    name: 'a form without logout_token',
    contentType: FORM,
    body: (token) => form([['id_token_hint', token]]),
    status: 400,
    code: REJECTED,
    reason: 'missing',
  },
  {
    name: 'an empty form',
    contentType: FORM,
    body: () => '',
    status: 400,
    code: REJECTED,
    reason: 'missing',
  },
  { name: 'no body at all', status: 400, code: REJECTED, reason: 'missing' },
  {
    name: 'an empty logout_token',
    contentType: FORM,
    body: () => form([['logout_token', '']]),
    status: 400,
    code: REJECTED,
    reason: 'malformed',
  },
  {
    name: 'a logout_token that is not a JWT',
    contentType: FORM,
    body: () => form([['logout_token', 'not.a.jwt']]),
    status: 400,
    code: REJECTED,
    reason: 'malformed',
  },
  {
    name: 'an ID token (with a nonce) as the logout token, in a form with a charset',
    contentType: `${FORM}; charset=UTF-8`,
    body: (token) => form([['logout_token', token]]),
    status: 400,
    code: REJECTED,
    reason: 'nonce',
  },
  {
    name: 'a body over the limit (413 stays)',
    contentType: FORM,
    body: (token) => form([['logout_token', `${token}${'a'.repeat(32 * 1024)}`]]),
    status: 413,
    code: 'request.body_too_large',
    reason: 'body-too-large',
  },
  {
    name: 'a chunked body that grows over the limit (413 stays)',
    contentType: FORM,
    chunked: true,
    body: (token) => form([['logout_token', `${token}${'a'.repeat(32 * 1024)}`]]),
    status: 413,
    code: 'request.body_too_large',
    reason: 'body-too-large',
  },
]

/** Sends `refusal` to `url` with `token` (a signed token that is no valid logout token). */
export async function sendRefusal(
  url: string,
  refusal: BackchannelRefusal,
  token: string,
): Promise<{ status: number; headers: Headers; text: string }> {
  const headers: Record<string, string> = {}
  if (refusal.contentType !== undefined) headers['content-type'] = refusal.contentType
  const bytes = refusal.body?.(token)
  const body =
    refusal.chunked === true && bytes !== undefined
      ? new Blob([bytes]).stream() // a stream has no length to declare: sent chunked
      : bytes
  const response = await fetch(url, {
    method: refusal.method ?? 'POST',
    headers,
    ...(body === undefined ? {} : { body, duplex: 'half' }),
  } as RequestInit)
  return { status: response.status, headers: response.headers, text: await response.text() }
}

/**
 * Sends `refusal` and checks the answer (its status, problem+json, `no-store`, its status and code in
 * the body, never the token) and the one refusal event it adds to `events` (its reason, never the token).
 */
export async function checkRefused(
  check: Check,
  url: string,
  refusal: BackchannelRefusal,
  token: string,
  events: readonly { readonly type: string }[],
  provider: string,
): Promise<void> {
  const before = events.length
  const answer = await sendRefusal(url, refusal, token)
  const name = refusal.name
  check(answer.status === refusal.status, `${name}: answered ${answer.status}: ${answer.text}`)
  check(
    /^application\/problem\+json/.test(answer.headers.get('content-type') ?? ''),
    `${name}: not problem+json (${answer.headers.get('content-type')})`,
  )
  check(
    answer.headers.get('cache-control') === 'no-store',
    `${name}: Cache-Control ${answer.headers.get('cache-control')}`,
  )
  let problem: { status?: unknown; code?: unknown } = {}
  try {
    problem = JSON.parse(answer.text) as typeof problem
  } catch {
    check(false, `${name}: the body is not JSON: ${answer.text}`)
  }
  check(
    problem.status === refusal.status && problem.code === refusal.code,
    `${name}: problem ${problem.status} ${String(problem.code)}, expected ${refusal.status} ${refusal.code}`,
  )
  check(!answer.text.includes(token), `${name}: the answer carries the token`)
  const added = events.slice(before) as readonly Record<string, unknown>[]
  const [event] = added
  check(
    added.length === 1 &&
      event !== undefined &&
      Object.keys(event).sort().join() === 'at,provider,reason,type' &&
      event.type === 'oauth.backchannel_logout_refused' &&
      event.provider === provider &&
      event.reason === refusal.reason &&
      event.at instanceof Date,
    `${name}: events ${JSON.stringify(added)}, expected one refusal with reason ${refusal.reason}`,
  )
  check(!JSON.stringify(added).includes(token), `${name}: an event carries the token`)
}
