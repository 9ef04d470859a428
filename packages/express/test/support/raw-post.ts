// Sends a request body exactly as given over real loopback HTTP: with a declared Content-Length, or
// chunked with none (the server learns the size only while reading), so body limits are tested on the
// wire rather than through a client library's own checks.

import type { RequestListener } from 'node:http'
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect } from 'vitest'

export interface RawAnswer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly text: string
  /** The parsed body of a JSON or problem+json answer, `{}` otherwise. */
  readonly body: Record<string, unknown>
}

export interface RawPost {
  readonly headers?: Record<string, string>
  readonly body: string | Buffer
  /** Send `Transfer-Encoding: chunked` and no Content-Length. */
  readonly chunked?: boolean
}

const CHUNK = 64 * 1024

/** POSTs `body` to `url`; resolves with the answer even when the server answers before the body is sent. */
export function rawPost(url: string, post: RawPost): Promise<RawAnswer> {
  const bytes = Buffer.isBuffer(post.body) ? post.body : Buffer.from(post.body)
  const headers: Record<string, string> = { ...post.headers }
  if (post.chunked !== true) headers['content-length'] = String(bytes.byteLength)
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', headers, timeout: 20_000 }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        const json = /json/.test(response.headers['content-type'] ?? '') && text !== ''
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text,
          body: json ? (JSON.parse(text) as Record<string, unknown>) : {},
        })
      })
    })
    outgoing.on('timeout', () => outgoing.destroy(new Error('no answer within 20 s')))
    outgoing.on('error', reject)
    for (let offset = 0; offset < bytes.byteLength; offset += CHUNK) {
      outgoing.write(bytes.subarray(offset, offset + CHUNK))
    }
    outgoing.end()
  })
}

/** Serves `app` on a loopback port until `close()`. */
export async function serve(app: RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer(app)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** `value` as JSON padded with trailing white space to exactly `bytes` bytes: valid JSON of any size. */
export function paddedJson(value: unknown, bytes: number): string {
  const text = JSON.stringify(value)
  const padding = bytes - Buffer.byteLength(text)
  if (padding < 0) throw new Error(`${text} is longer than ${bytes} bytes`)
  return text + ' '.repeat(padding)
}

/** The answer is 413 problem+json `request.body_too_large`, not cacheable. */
export function expectTooLarge(answer: RawAnswer): void {
  expect(answer.status).toBe(413)
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(answer.headers['cache-control']).toBe('no-store')
  expect(answer.body).toMatchObject({
    status: 413,
    title: 'Content Too Large',
    code: 'request.body_too_large',
  })
}
