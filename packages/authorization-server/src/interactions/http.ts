import type { IncomingMessage, ServerResponse } from 'node:http'
import { bodyTooLargeProblem, parseRequestBody, readLimitedBody } from '@portcullis/http/body'
import { HttpProblem, type ProblemInit, renderProblem } from '@portcullis/http/problem'
import { parseCookies } from '@portcullis/http/security'

/** Schemes no redirect URI may have (oidc-provider refuses them first): never allowed as a form target. */
const NEVER_A_TARGET = new Set(['javascript:', 'data:', 'blob:', 'file:', 'vbscript:', 'about:'])

/**
 * The `form-action` sources of a page whose form leads to `target` (the validated redirect URI): the
 * browser checks `form-action` on every redirect that follows a form post (Chromium does), and the
 * consent form's answer ends at the client's redirect URI. An http(s) target adds its origin, another
 * scheme (a native app's `com.example.app:/cb`) the scheme; the URL parser leaves nothing else in either.
 */
export function formTargetSource(target: unknown): string | undefined {
  if (typeof target !== 'string') return undefined
  const url = URL.parse(target)
  if (url === null) return undefined
  // CSP host sources have no IPv6 literal: `http://[::1]:8080` is allowed by its scheme.
  if (url.protocol === 'https:' || url.protocol === 'http:') {
    return url.hostname.startsWith('[') ? url.protocol : url.origin
  }
  return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) && !NEVER_A_TARGET.has(url.protocol)
    ? url.protocol
    : undefined
}

/**
 * Headers of every interaction response: never cached, never framed, no script, forms only to the
 * server itself (and, on the consent page, to the client's redirect URI). `Referrer-Policy: same-origin`:
 * under `no-referrer` browsers post the page's forms with `Origin: null`; `same-origin` keeps the real
 * Origin on the server's own requests and still sends no referrer (the interaction URL) to the client.
 */
export function secureHeaders(res: ServerResponse, formTarget?: string): void {
  res.setHeader('Cache-Control', 'no-store')
  res.setHeader('Pragma', 'no-cache')
  const formAction = formTarget === undefined ? "'self'" : `'self' ${formTarget}`
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  )
  res.setHeader('X-Frame-Options', 'DENY')
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.setHeader('Referrer-Policy', 'same-origin')
}

export function sendHtml(
  res: ServerResponse,
  status: number,
  html: string,
  options: { readonly formTarget?: string; readonly headers?: Readonly<Record<string, string>> } = {},
): void {
  secureHeaders(res, options.formTarget)
  for (const [name, value] of Object.entries(options.headers ?? {})) res.setHeader(name, value)
  res.statusCode = status
  res.setHeader('Content-Type', 'text/html; charset=utf-8')
  res.setHeader('Content-Length', Buffer.byteLength(html))
  res.end(html)
}

export function redirect(res: ServerResponse, location: string): void {
  secureHeaders(res)
  res.statusCode = 303
  res.setHeader('Location', location)
  res.setHeader('Content-Length', '0')
  res.end()
}

/** A problem+json answer (RFC 9457, the HTTP layer's rendering); `detail` is written for the client. */
export function sendProblem(res: ServerResponse, init: ProblemInit): void {
  secureHeaders(res)
  const { status, headers, body } = renderProblem(init)
  res.statusCode = status
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value)
  res.setHeader('Content-Length', Buffer.byteLength(body))
  res.end(body)
}

/** The value of one cookie of the request (the HTTP layer's parsing: the first occurrence wins). */
export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  return parseCookies(req.headers.cookie).get(name)
}

export function appendSetCookie(res: ServerResponse, cookie: string): void {
  const existing = res.getHeader('Set-Cookie')
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)]
  res.setHeader('Set-Cookie', [...list, cookie])
}

export type BodyResult =
  | { readonly kind: 'ok'; readonly form: Readonly<Record<string, string>> }
  | { readonly kind: 'refused'; readonly problem: HttpProblem }

const FORM = 'application/x-www-form-urlencoded'
const NOT_A_FORM: ProblemInit = Object.freeze({
  status: 415,
  code: 'request.unsupported_media_type',
  detail: 'The consent form must be posted as a form.',
})

/**
 * The form an upstream body parser (Express's `urlencoded`, mounted before the server) already read
 * into `req.body`: its text, or the string fields of its object (any other value is dropped).
 */
function parsedBody(body: unknown): Buffer {
  if (typeof body === 'string' || Buffer.isBuffer(body)) return Buffer.from(body)
  if (typeof body === 'object' && body !== null) {
    const fields = Object.entries(body).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    )
    return Buffer.from(new URLSearchParams(fields).toString())
  }
  return Buffer.alloc(0)
}

/**
 * Reads the `application/x-www-form-urlencoded` body of a form post with the HTTP layer's reader and
 * parser: at most `limit` bytes (a larger body stops the read at once: 413 `request.body_too_large`),
 * UTF-8, each field once (400 `request.invalid_body`), a form only (415). A body an upstream parser
 * already consumed is taken from `req.body`, as oidc-provider does.
 */
export async function readForm(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
  try {
    if (type !== FORM) return { kind: 'refused', problem: new HttpProblem(NOT_A_FORM) }
    const raw = req.readable
      ? await readLimitedBody(req, req.headers['content-length'], limit)
      : parsedBody((req as IncomingMessage & { body?: unknown }).body)
    if (raw === undefined || raw.byteLength > limit) {
      return { kind: 'refused', problem: new HttpProblem(bodyTooLargeProblem(limit)) }
    }
    const form = parseRequestBody(raw, FORM)
    return { kind: 'ok', form: (form ?? {}) as Record<string, string> }
  } catch (error) {
    if (error instanceof HttpProblem) return { kind: 'refused', problem: error }
    throw error
  }
}

/** A browser (its navigation asks for HTML) gets pages; an API client asking for JSON, problem+json. */
export function wantsHtml(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? ''
  return !/application\/(problem\+)?json/.test(accept) || accept.includes('text/html')
}

/** A request header as one string (repeated lines joined), or undefined. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}
