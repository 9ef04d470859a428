import { lookup } from 'node:dns/promises'
import { classifyAddress } from './addresses.js'
import { OIDCError, OIDCErrorCodes, type OIDCErrorOptions } from './errors.js'

/** What outbound requests go through: the WHATWG `fetch` shape (inject one to route through a proxy or test). */
export type OIDCFetch = (url: string, init: RequestInit) => Promise<Response>

/**
 * Resolves a hostname to every address it has (both families). Inject one in tests to simulate a name
 * that resolves to `10.0.0.1` or `169.254.169.254`. Default: `node:dns` `lookup(..., { all: true })`.
 */
export type HostResolver = (hostname: string) => Promise<readonly string[]>

export const defaultHostResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address)

export interface OutboundHttpPolicy {
  /** Allow `http:` and loopback addresses (127.0.0.0/8, ::1, `localhost`) on any port: development and tests. */
  readonly allowLoopback: boolean
  /** Allow private, link-local and reserved addresses (an IdP inside your network). Default false. */
  readonly allowPrivateAddresses: boolean
  /** Ports allowed for `https:` (default `[443]`); loopback hosts with `allowLoopback` may use any port. */
  readonly allowedPorts: ReadonlySet<number>
  /** Whole request, body included. */
  readonly timeoutMs: number
  /** Largest response body accepted, enforced while streaming. */
  readonly maxResponseBytes: number
  /** When set, only these origins may be requested (the provider's pinned endpoints). */
  readonly allowedOrigins?: ReadonlySet<string>
}

/**
 * An outbound request failed. `sent` is false only when the request provably never left this process
 * (refused by policy, DNS failure, connection refused or unreachable): the server cannot have seen it.
 */
export class OIDCRequestError extends OIDCError {
  readonly sent: boolean

  constructor(refused: boolean, sent: boolean, options: OIDCErrorOptions = {}) {
    super(
      refused ? OIDCErrorCodes.requestRefused : OIDCErrorCodes.providerUnavailable,
      refused ? 'the outbound request was refused by policy' : 'the outbound request failed',
      options,
    )
    this.sent = sent
  }
}

const refused = (reason: string): OIDCRequestError => new OIDCRequestError(true, false, { reason })
const failed = (reason: string, sent: boolean, cause?: unknown): OIDCRequestError =>
  new OIDCRequestError(false, sent, { reason, ...(cause === undefined ? {} : { cause }) })

/** Connection-phase failures: the request bytes were never written. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
])

function errorCodes(error: unknown, depth = 0): string[] {
  if (depth > 6 || typeof error !== 'object' || error === null) return []
  const codes: string[] = []
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') codes.push(code)
  if (error instanceof AggregateError)
    for (const inner of error.errors) codes.push(...errorCodes(inner, depth + 1))
  codes.push(...errorCodes((error as { cause?: unknown }).cause, depth + 1))
  return codes
}

/** True when a fetch failure happened before anything was sent (every error code is a connect failure). */
export function failedBeforeSending(error: unknown): boolean {
  const codes = errorCodes(error)
  return codes.length > 0 && codes.every((code) => NOT_SENT_CODES.has(code))
}

const LOOPBACK_NAMES = new Set(['localhost'])

/**
 * The outbound HTTP client of discovery and of each provider: checks scheme, port, origin and every DNS
 * answer before sending, never follows redirects, bounds time and body size, and can be closed (which
 * aborts its in-flight requests and refuses new ones). The DNS check happens before the injected fetch
 * connects, and the fetch resolves the name again: an answer that changes in between (DNS rebinding) is
 * only caught if the injected fetch pins its connection to an address this check admitted.
 */
export class OutboundHttpClient {
  readonly policy: OutboundHttpPolicy
  readonly #fetch: OIDCFetch
  readonly #resolve: HostResolver
  readonly #closer = new AbortController()

  constructor(policy: OutboundHttpPolicy, fetchFunction: OIDCFetch, resolve: HostResolver) {
    this.policy = policy
    this.#fetch = fetchFunction
    this.#resolve = resolve
  }

  get closed(): boolean {
    return this.#closer.signal.aborted
  }

  close(): void {
    this.#closer.abort()
  }

  /** Refuses a URL the policy does not allow; resolves its host and checks every answer. */
  async check(target: URL): Promise<void> {
    if (target.username !== '' || target.password !== '') throw refused('userinfo')
    if (target.hash !== '') throw refused('fragment')
    const host = target.hostname
    const literal = classifyAddress(host)
    const loopbackName = LOOPBACK_NAMES.has(host) || literal === 'loopback'
    const loopbackAllowed = this.policy.allowLoopback && loopbackName
    if (target.protocol !== 'https:' && !(target.protocol === 'http:' && loopbackAllowed)) {
      throw refused('scheme')
    }
    const port = target.port === '' ? (target.protocol === 'https:' ? 443 : 80) : Number(target.port)
    if (!loopbackAllowed && !this.policy.allowedPorts.has(port)) throw refused('port')
    if (this.policy.allowedOrigins !== undefined && !this.policy.allowedOrigins.has(target.origin)) {
      throw refused('origin')
    }
    if (literal !== 'invalid') {
      this.#admit(literal)
      return
    }
    let answers: readonly string[]
    try {
      answers = await this.#resolve(host)
    } catch (error) {
      throw failed('dns', false, error)
    }
    if (!Array.isArray(answers) || answers.length === 0) throw failed('dns-empty', false)
    // One bad answer rejects them all: the connection could use any of them.
    for (const answer of answers) this.#admit(classifyAddress(answer))
  }

  #admit(kind: ReturnType<typeof classifyAddress>): void {
    if (kind === 'public') return
    if (kind === 'loopback' && this.policy.allowLoopback) return
    if (kind === 'private' && this.policy.allowPrivateAddresses) return
    throw refused(kind === 'invalid' ? 'address-invalid' : `address-${kind}`)
  }

  /**
   * Sends one request under the policy and returns a fully buffered `Response`. Throws `OIDCRequestError`:
   * refused by policy, a redirect (never followed), a compressed or oversized body, a timeout or a
   * network failure.
   */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    if (this.closed) throw new OIDCError(OIDCErrorCodes.closed, 'the HTTP client is closed')
    let target: URL
    try {
      target = new URL(url)
    } catch {
      throw refused('url')
    }
    await this.check(target)
    const signals = [this.#closer.signal, AbortSignal.timeout(this.policy.timeoutMs)]
    if (init.signal) signals.push(init.signal)
    const signal = AbortSignal.any(signals)
    const headers = new Headers(init.headers)
    headers.set('accept-encoding', 'identity')
    let response: Response
    try {
      response = await this.#fetch(target.href, { ...init, headers, redirect: 'manual', signal })
    } catch (error) {
      if (this.closed) throw new OIDCError(OIDCErrorCodes.closed, 'the HTTP client is closed')
      throw failed(signal.aborted ? 'timeout' : 'network', !failedBeforeSending(error), error)
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined)
      throw refused('redirect')
    }
    const encoding = (response.headers.get('content-encoding') ?? 'identity').trim().toLowerCase()
    if (encoding !== 'identity' && encoding !== '') {
      await response.body?.cancel().catch(() => undefined)
      throw failed('compressed-body', true)
    }
    const body = await readCapped(response, this.policy.maxResponseBytes, signal)
    const empty = response.status === 204 || response.status === 205
    return new Response(empty ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  }

  /** The client as an `OIDCFetch`, for openid-client's `customFetch` and the JWKS fetcher. */
  readonly fetch: OIDCFetch = (url, init) => this.request(url, init)
}

async function readCapped(response: Response, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN)
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined)
    throw failed('body-too-large', true)
  }
  if (response.body === null) return new Uint8Array(0)
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(failed('timeout', true))
    if (signal.aborted) fail()
    else signal.addEventListener('abort', fail, { once: true })
  })
  aborted.catch(() => undefined)
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted])
      if (done) break
      total += value.byteLength
      if (total > maxBytes) throw failed('body-too-large', true)
      chunks.push(value)
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined)
    if (error instanceof OIDCRequestError) throw error
    throw failed(signal.aborted ? 'timeout' : 'body-read', true, error)
  }
  const bytes = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}
