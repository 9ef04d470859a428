import { type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { JWKSError } from './jwks-error.js'

export type JWKSFetchResult =
  | {
      readonly status: 'ok'
      readonly body: string
      readonly cacheControl?: string
      readonly etag?: string
    }
  | { readonly status: 'not-modified'; readonly cacheControl?: string }

/** Port: obtains a key set document. Throws (any error) when it cannot; the provider maps that to 503. */
export interface JWKSFetcher {
  fetch(
    uri: string,
    options: { readonly etag?: string; readonly signal: AbortSignal },
  ): Promise<JWKSFetchResult>
  close?(): Promise<void> | void
}

/** The subset of the WHATWG `fetch` signature the default fetcher needs. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>

export interface FetchJWKSFetcherOptions {
  /** Defaults to the global `fetch` (Node 20 has one). Inject a function to route through a proxy or test. */
  readonly fetch?: FetchFunction
  /** Whole-request timeout. Default 5 s. */
  readonly timeoutMs?: number
  /** Largest accepted document. Default 1 MiB. */
  readonly maxBytes?: number
}

export const DEFAULT_MAX_JWKS_BYTES = 1024 * 1024

const FETCHER_OPTIONS: OptionsShape<FetchJWKSFetcherOptions> = {
  fetch: { kind: 'function', code: 'jwks.invalid_policy' },
  timeoutMs: { kind: 'number', code: 'jwks.invalid_policy' },
  maxBytes: { kind: 'number', code: 'jwks.invalid_policy' },
}

/**
 * A `JWKSFetcher` over `fetch`: GET only, redirects refused, identity encoding requested, the body read
 * with a byte cap (a lying `content-length` cannot get past it), conditional requests with `ETag`.
 */
export function createFetchJWKSFetcher(options: FetchJWKSFetcherOptions = {}): JWKSFetcher {
  readOptions(options, 'createFetchJWKSFetcher', FETCHER_OPTIONS)
  const fetchFunction = options.fetch ?? globalThis.fetch
  const timeoutMs = options.timeoutMs ?? 5000
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_JWKS_BYTES
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new ConfigurationError('jwks.invalid_policy', 'JWKS fetch timeout must be a positive integer')
  }
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) {
    throw new ConfigurationError('jwks.invalid_policy', 'JWKS maxBytes must be a positive integer')
  }
  if (typeof fetchFunction !== 'function') {
    throw new ConfigurationError('jwks.invalid_policy', 'no fetch function available for JWKS fetching')
  }

  return {
    async fetch(uri, { etag, signal }) {
      const headers: Record<string, string> = {
        accept: 'application/jwk-set+json, application/json',
        'accept-encoding': 'identity',
      }
      if (etag !== undefined) headers['if-none-match'] = etag
      const combined = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
      let response: Response
      try {
        response = await fetchFunction(uri, { method: 'GET', headers, redirect: 'manual', signal: combined })
      } catch (error) {
        throw new JWKSError('jwks.fetch_failed', 'JWKS request failed', { cause: error })
      }
      const cacheControl = response.headers.get('cache-control') ?? undefined
      if (response.status === 304) {
        await response.body?.cancel()
        return cacheControl === undefined
          ? { status: 'not-modified' }
          : { status: 'not-modified', cacheControl }
      }
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel()
        throw new JWKSError('jwks.redirect_refused', 'JWKS endpoint answered with a redirect')
      }
      if (response.status !== 200) {
        await response.body?.cancel()
        throw new JWKSError('jwks.http_status', `JWKS endpoint answered HTTP ${response.status}`)
      }
      const body = await readCapped(response, maxBytes)
      const responseEtag = response.headers.get('etag') ?? undefined
      return {
        status: 'ok',
        body,
        ...(cacheControl === undefined ? {} : { cacheControl }),
        ...(responseEtag === undefined ? {} : { etag: responseEtag }),
      }
    },
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN)
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel()
    throw new JWKSError('jwks.document_too_large', 'JWKS document exceeds the size limit')
  }
  if (response.body === null) return ''
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      total += value.byteLength
      if (total > maxBytes) {
        await reader.cancel()
        throw new JWKSError('jwks.document_too_large', 'JWKS document exceeds the size limit')
      }
      chunks.push(value)
    }
  } catch (error) {
    if (error instanceof JWKSError) throw error
    throw new JWKSError('jwks.fetch_failed', 'JWKS response body could not be read', { cause: error })
  }
  const bytes = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  try {
    // One leading byte order mark is dropped here (RFC 8259 §8.1); any other is malformed JSON.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch (error) {
    throw new JWKSError('jwks.document_invalid', 'JWKS document is not valid UTF-8', { cause: error })
  }
}
