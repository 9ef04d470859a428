import { HttpProblem } from '../problem/problem.js'
import { bodyTooLargeProblem } from './body-limit.js'

/** The default largest request body of the local-account routes: 16 KiB. */
export const LOCAL_ACCOUNTS_MAX_BODY_BYTES = 16 * 1024

const bad = (code: string, detail: string) => new HttpProblem({ status: 400, code, detail })

const tooLarge = (limit: number) => new HttpProblem(bodyTooLargeProblem(limit))

/** The parts of a Node readable request stream the body reader uses (`IncomingMessage` has them). */
export interface BodyStream {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown
  off(event: 'data', listener: (chunk: Buffer) => void): unknown
  once(event: 'end', listener: () => void): unknown
  once(event: 'error', listener: (error: Error) => void): unknown
  resume(): unknown
}

/**
 * The bytes of a request body, at most `limit`, or undefined when it is larger: a declared
 * `Content-Length` over the limit is refused before reading, a stream that grows past it as soon as it
 * does (the rest is drained, so the answer can still be sent on the connection).
 */
export function readLimitedBody(
  stream: BodyStream,
  contentLength: string | undefined,
  limit: number,
): Promise<Buffer | undefined> {
  const declared = Number(contentLength)
  if (Number.isFinite(declared) && declared > limit) {
    stream.resume()
    return Promise.resolve(undefined)
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    const finish = (error: Error | undefined, value?: Buffer) => {
      if (done) return
      done = true
      stream.off('data', onData)
      if (error === undefined) resolve(value)
      else reject(error)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength
      if (size > limit) {
        stream.resume()
        finish(undefined, undefined)
      } else chunks.push(chunk)
    }
    stream.on('data', onData)
    stream.once('end', () => finish(undefined, Buffer.concat(chunks)))
    stream.once('error', (error) => finish(error))
  })
}

/** The bytes of the body, at most `limit`; a larger body is refused before it is read whole. */
async function readRaw(
  stream: BodyStream,
  contentLength: string | undefined,
  limit: number,
): Promise<Buffer> {
  const raw = await readLimitedBody(stream, contentLength, limit)
  if (raw === undefined) throw tooLarge(limit)
  return raw
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

function text(raw: Uint8Array): string {
  try {
    return utf8.decode(raw)
  } catch {
    throw bad('request.invalid_body', 'the body is not UTF-8')
  }
}

/**
 * The 400 `request.invalid_body` of a form whose field appears twice; `field` names it for a route that
 * answers such a form its own way (never rendered: a field name is the client's input).
 */
export class RepeatedFormFieldProblem extends HttpProblem {
  readonly field: string

  constructor(field: string) {
    super({ status: 400, code: 'request.invalid_body', detail: 'a form field appears twice' })
    this.name = 'RepeatedFormFieldProblem'
    this.field = field
  }
}

function form(raw: Uint8Array): Record<string, string> {
  const fields: Record<string, string> = Object.create(null)
  for (const [key, value] of new URLSearchParams(text(raw))) {
    if (Object.hasOwn(fields, key)) throw new RepeatedFormFieldProblem(key)
    fields[key] = value
  }
  return fields
}

function json(raw: Uint8Array): unknown {
  try {
    return JSON.parse(text(raw))
  } catch (error) {
    if (error instanceof HttpProblem) throw error
    throw bad('request.invalid_json', 'the body is not valid JSON')
  }
}

/**
 * Parses body bytes: JSON (`application/json`, `+json`) or a form (`application/x-www-form-urlencoded`),
 * UTF-8. An empty body is `undefined`. Anything else is a 400 problem (`request.invalid_json`,
 * `request.invalid_body`) or 415 (`request.unsupported_media_type`).
 */
export function parseRequestBody(raw: Uint8Array, contentType: string | undefined): unknown {
  if (raw.byteLength === 0) return undefined
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase()
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

/**
 * The request body as a plain value, read from the stream: at most `limit` bytes (a larger body is the
 * 413 `request.body_too_large` problem), then `parseRequestBody`. Nothing is read from a store before this
 * succeeds.
 */
export async function readRequestBody(
  stream: BodyStream,
  headers: { readonly contentLength: string | undefined; readonly contentType: string | undefined },
  limit: number,
): Promise<unknown> {
  return parseRequestBody(await readRaw(stream, headers.contentLength, limit), headers.contentType)
}
