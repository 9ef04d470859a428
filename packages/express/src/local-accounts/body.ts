import type { Request } from 'express'
import { readLimitedBody } from '../body/body-limit.js'
import { HttpProblem } from '../problem/problem.js'

/** The default largest request body of the local-account routes: 16 KiB. */
export const LOCAL_ACCOUNTS_MAX_BODY_BYTES = 16 * 1024

const bad = (code: string, detail: string) => new HttpProblem({ status: 400, code, detail })

const utf8 = new TextDecoder('utf-8', { fatal: true })

function text(raw: Buffer): string {
  try {
    return utf8.decode(raw)
  } catch {
    throw bad('request.invalid_body', 'the body is not UTF-8')
  }
}

function form(raw: Buffer): Record<string, string> {
  const fields: Record<string, string> = Object.create(null)
  for (const [key, value] of new URLSearchParams(text(raw))) {
    if (Object.hasOwn(fields, key)) throw bad('request.invalid_body', 'a form field appears twice')
    fields[key] = value
  }
  return fields
}

function json(raw: Buffer): unknown {
  try {
    return JSON.parse(text(raw))
  } catch (error) {
    if (error instanceof HttpProblem) throw error
    throw bad('request.invalid_json', 'the body is not valid JSON')
  }
}

/**
 * The request body as a plain value: JSON (`application/json`) or a form
 * (`application/x-www-form-urlencoded`), at most `limit` bytes, UTF-8. An empty body is `undefined`.
 * A body an application-level parser already read (`request.body` set) is used as it is. A larger body is
 * 413 (`request.body_too_large`); anything else is a 400 problem (`request.invalid_json`,
 * `request.invalid_body`) or 415 (`request.unsupported_media_type`); nothing is read from a store before
 * this succeeds.
 */
export async function readRequestBody(request: Request, limit: number): Promise<unknown> {
  if (request.body !== undefined) return request.body
  const raw = await readLimitedBody(request, limit)
  if (raw.byteLength === 0) return undefined
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
  if (type === 'application/json' || (type !== undefined && /^application\/[a-z0-9.+-]*\+json$/.test(type))) {
    return json(raw)
  }
  if (type === 'application/x-www-form-urlencoded') return form(raw)
  throw new HttpProblem({
    status: 415,
    code: 'request.unsupported_media_type',
    detail: 'send application/json or application/x-www-form-urlencoded',
  })
}
