import type { IncomingMessage, ServerResponse } from 'node:http'

/** Headers of every interaction response: never cached, never framed, no script, no foreign form target. */
export function secureHeaders(res: ServerResponse): void {
  res.setHeader('Cache-Control', 'no-store')
  res.setHeader('Pragma', 'no-cache')
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  )
  res.setHeader('X-Frame-Options', 'DENY')
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.setHeader('Referrer-Policy', 'no-referrer')
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  secureHeaders(res)
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

/** A problem+json answer (RFC 9457); `detail` is written for the client, never an internal message. */
export function sendProblem(
  res: ServerResponse,
  status: number,
  code: string,
  title: string,
  detail: string,
): void {
  secureHeaders(res)
  const body = JSON.stringify({ type: 'about:blank', title, status, code, detail })
  res.statusCode = status
  res.setHeader('Content-Type', 'application/problem+json')
  res.setHeader('Content-Length', Buffer.byteLength(body))
  res.end(body)
}

/** The value of one cookie of the request. */
export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie
  if (header === undefined) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

export function appendSetCookie(res: ServerResponse, cookie: string): void {
  const existing = res.getHeader('Set-Cookie')
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)]
  res.setHeader('Set-Cookie', [...list, cookie])
}

export type BodyResult =
  | { readonly kind: 'ok'; readonly form: URLSearchParams }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'unsupported' }

/**
 * The form an upstream body parser (Express's `urlencoded`, mounted before the server) already read
 * into `req.body`: its text, or the string fields of its object (any other value is dropped).
 */
function parsedForm(body: unknown, limit: number): BodyResult {
  let text: string
  if (typeof body === 'string' || Buffer.isBuffer(body)) text = body.toString()
  else if (typeof body === 'object' && body !== null) {
    const fields = Object.entries(body).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    )
    text = new URLSearchParams(fields).toString()
  } else text = ''
  if (Buffer.byteLength(text) > limit) return { kind: 'too-large' }
  return { kind: 'ok', form: new URLSearchParams(text) }
}

/**
 * Reads an `application/x-www-form-urlencoded` body of at most `limit` bytes. A larger body stops the
 * read at once (the rest is never buffered). A body an upstream parser already consumed is taken from
 * `req.body`, as oidc-provider does.
 */
export async function readForm(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
  if (type !== 'application/x-www-form-urlencoded') return { kind: 'unsupported' }
  const declared = Number(req.headers['content-length'] ?? '0')
  if (Number.isFinite(declared) && declared > limit) return { kind: 'too-large' }
  if (!req.readable) return parsedForm((req as IncomingMessage & { body?: unknown }).body, limit)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)
    size += buffer.byteLength
    if (size > limit) return { kind: 'too-large' }
    chunks.push(buffer)
  }
  return { kind: 'ok', form: new URLSearchParams(Buffer.concat(chunks).toString('utf8')) }
}
