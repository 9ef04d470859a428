import { parseRequestBody } from '../body/body.js'
import { bodyTooLargeProblem } from '../body/body-limit.js'
import { HttpProblem } from '../problem/problem.js'

/** What the body reader needs of a Web `Request`. */
export interface WebBodySource {
  readonly headers: Headers
  readonly body: ReadableStream<Uint8Array> | null
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}

/**
 * The bytes of a Web request body, at most `limit`, or undefined when it is larger: a declared
 * `Content-Length` over the limit is refused before reading, a stream that grows past the limit as soon
 * as it does (the stream is then cancelled, so nothing more is buffered). No body is zero bytes.
 */
export async function readWebBody(request: WebBodySource, limit: number): Promise<Uint8Array | undefined> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN)
  const stream = request.body
  if (Number.isFinite(declared) && declared > limit) {
    await stream?.cancel().catch(() => {})
    return undefined
  }
  if (stream === null) return new Uint8Array(0)
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      return undefined
    }
    chunks.push(value)
  }
  return concat(chunks, size)
}

/**
 * The body of a Web request as a plain value: at most `limit` bytes (a larger body is the 413
 * `request.body_too_large` problem naming the limit), then JSON or a form (`parseRequestBody`: 400 and
 * 415 problems for anything else).
 */
export async function readWebRequestBody(request: WebBodySource, limit: number): Promise<unknown> {
  const raw = await readWebBody(request, limit)
  if (raw === undefined) throw new HttpProblem(bodyTooLargeProblem(limit))
  return parseRequestBody(raw, request.headers.get('content-type') ?? undefined)
}
