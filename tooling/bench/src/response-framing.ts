/**
 * Finds where HTTP/1.1 responses end on a keep-alive connection, so the load generator can count them and
 * send the next request. Handles `Content-Length`, `Transfer-Encoding: chunked` and bodiless statuses;
 * bytes may arrive split anywhere. Responses to GET and POST only (no HEAD, no upgrades).
 */
export class ResponseFraming {
  #buffer: Buffer = Buffer.alloc(0)

  /** Adds received bytes; returns the status code of every response they completed, in order. */
  push(chunk: Buffer): number[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk])
    const statuses: number[] = []
    for (;;) {
      const framed = frame(this.#buffer)
      if (framed === undefined) break
      statuses.push(framed.status)
      this.#buffer = this.#buffer.subarray(framed.length)
    }
    return statuses
  }
}

const HEAD_END = Buffer.from('\r\n\r\n')
const CRLF = Buffer.from('\r\n')

/** The status and total length of the first complete response in `buffer`, or undefined when incomplete. */
function frame(buffer: Buffer): { status: number; length: number } | undefined {
  const headEnd = buffer.indexOf(HEAD_END)
  if (headEnd === -1) return undefined
  const head = buffer.toString('latin1', 0, headEnd)
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(head)
  if (match === null) throw new Error(`not an HTTP/1.1 response: ${JSON.stringify(head.slice(0, 40))}`)
  const status = Number(match[1])
  const bodyStart = headEnd + HEAD_END.length
  if (status < 200 || status === 204 || status === 304) {
    // 1xx interim responses are framed like bodiless ones; the final response follows.
    return { status, length: bodyStart }
  }
  const contentLength = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head)
  if (contentLength !== null) {
    const length = bodyStart + Number(contentLength[1])
    return buffer.length >= length ? { status, length } : undefined
  }
  if (/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) {
    const length = chunkedLength(buffer, bodyStart)
    return length === undefined ? undefined : { status, length }
  }
  throw new Error('response without Content-Length or chunked encoding: the connection cannot be reused')
}

/** Where a chunked body starting at `start` ends (after the last chunk and trailers), or undefined. */
function chunkedLength(buffer: Buffer, start: number): number | undefined {
  let offset = start
  for (;;) {
    const lineEnd = buffer.indexOf(CRLF, offset)
    if (lineEnd === -1) return undefined
    const size = Number.parseInt(buffer.toString('latin1', offset, lineEnd), 16)
    if (!Number.isInteger(size) || size < 0) throw new Error('malformed chunk size')
    if (size === 0) {
      // the last chunk, then trailers (if any) and an empty line: the first blank line from here ends it
      const end = buffer.indexOf(HEAD_END, lineEnd)
      return end === -1 ? undefined : end + HEAD_END.length
    }
    offset = lineEnd + CRLF.length + size + CRLF.length
    if (buffer.length < offset) return undefined
  }
}
