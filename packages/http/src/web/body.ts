import { parseRequestBody } from '../body/body.js'
import { bodyTooLargeProblem } from '../body/body-limit.js'
import { HttpProblem } from '../problem/problem.js'

/** What the body reader needs of a Web `Request`. */
export interface WebBodySource {
  readonly headers: Headers
  readonly body: ReadableStream<Uint8Array> | null
  /**
   * The whole body, as a `Request` has it: read instead of the stream when the request declares a
   * `Content-Length` within the limit (the server framed the body by it), so a runtime that can read the
   * body without a stream (`@hono/node-server` reads the socket directly) makes none.
   */
  arrayBuffer?(): Promise<ArrayBuffer>
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
 * as it does (the stream is then cancelled, so nothing more is buffered). A body that declares its length
 * within the limit is read whole (`arrayBuffer`, where the source has it), and still refused if it turns
 * out longer. No body is zero bytes.
 */
export async function readWebBody(request: WebBodySource, limit: number): Promise<Uint8Array | undefined> {
  const length = request.headers.get('content-length')
  const declared = Number(length ?? Number.NaN)
  if (Number.isFinite(declared) && declared > limit) {
    await request.body?.cancel().catch(() => {})
    return undefined
  }
  if (
    length !== null &&
    Number.isSafeInteger(declared) &&
    declared >= 0 &&
    request.arrayBuffer !== undefined &&
    !request.headers.has('transfer-encoding')
  ) {
    const bytes = new Uint8Array(await request.arrayBuffer())
    return bytes.byteLength > limit ? undefined : bytes
  }
  return readStream(request.body, limit)
}

/**
 * The bytes of a body stream, at most `limit`, or undefined as soon as it grows past the limit (the
 * stream is then cancelled, so nothing more is buffered) or `signal` aborts (the stream is cancelled
 * through its reader). No stream is zero bytes.
 */
export async function readStream(
  stream: ReadableStream<Uint8Array> | null,
  limit: number,
  signal?: AbortSignal,
): Promise<Uint8Array | undefined> {
  if (stream === null) return new Uint8Array(0)
  const reader = stream.getReader()
  // a locked stream can be cancelled only through its reader
  const stop = () => {
    reader.cancel().catch(() => {})
  }
  signal?.addEventListener('abort', stop, { once: true })
  try {
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
    return signal?.aborted === true ? undefined : concat(chunks, size)
  } finally {
    signal?.removeEventListener('abort', stop)
  }
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
