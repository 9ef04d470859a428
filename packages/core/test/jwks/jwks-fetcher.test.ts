import { createServer, type RequestListener, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { parseJWKSDocument } from '../../src/jwks/jwks-document.js'
import { createFetchJWKSFetcher } from '../../src/jwks/jwks-fetcher.js'

let server: Server | undefined

afterEach(async () => {
  const current = server
  server = undefined
  if (current !== undefined) {
    current.closeAllConnections()
    await new Promise((resolve) => current.close(resolve))
  }
})

async function serve(handler: RequestListener): Promise<string> {
  const created = createServer(handler)
  server = created
  await new Promise<void>((resolve) => created.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(created.address() as AddressInfo).port}/jwks`
}

const signal = () => new AbortController().signal

describe('fetch-based JWKS fetcher', () => {
  it('asks for identity encoding and JSON, and returns body, etag and cache-control', async () => {
    let seen: Record<string, string | string[] | undefined> = {}
    const url = await serve((request, response) => {
      seen = request.headers
      response.writeHead(200, { etag: '"a"', 'cache-control': 'max-age=60' }).end('{"keys":[]}')
    })
    const result = await createFetchJWKSFetcher().fetch(url, { signal: signal() })
    expect(result).toEqual({ status: 'ok', body: '{"keys":[]}', etag: '"a"', cacheControl: 'max-age=60' })
    expect(seen['accept-encoding']).toBe('identity')
    expect(seen.accept).toContain('application/json')
  })

  it('refuses a declared oversized body before reading it', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, { 'content-length': String(4096) }).end('x'.repeat(4096))
    })
    await expect(
      createFetchJWKSFetcher({ maxBytes: 1024 }).fetch(url, { signal: signal() }),
    ).rejects.toMatchObject({
      code: 'jwks.document_too_large',
    })
  })

  it('stops reading a chunked body at the cap', async () => {
    let written = 0
    const url = await serve((_request, response) => {
      response.writeHead(200)
      const timer = setInterval(() => {
        written += 512
        if (!response.write('x'.repeat(512)) || written > 64 * 1024) {
          clearInterval(timer)
          response.end()
        }
      }, 1)
      response.on('close', () => clearInterval(timer))
    })
    await expect(
      createFetchJWKSFetcher({ maxBytes: 2048 }).fetch(url, { signal: signal() }),
    ).rejects.toMatchObject({
      code: 'jwks.document_too_large',
    })
    expect(written).toBeLessThan(64 * 1024)
  })

  it('times out a hanging endpoint', async () => {
    const url = await serve(() => {})
    const started = Date.now()
    await expect(
      createFetchJWKSFetcher({ timeoutMs: 200 }).fetch(url, { signal: signal() }),
    ).rejects.toMatchObject({
      code: 'jwks.fetch_failed',
    })
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('rejects bodies that are not UTF-8 and non-200 answers', async () => {
    const url = await serve((request, response) => {
      if (request.headers['if-none-match'] === '"e"') response.writeHead(304).end()
      else if (request.url === '/jwks') response.writeHead(200).end(Buffer.from([0x7b, 0xff, 0x7d]))
      else response.writeHead(404).end()
    })
    const fetcher = createFetchJWKSFetcher()
    await expect(fetcher.fetch(url, { signal: signal() })).rejects.toMatchObject({
      code: 'jwks.document_invalid',
    })
    expect(await fetcher.fetch(url, { signal: signal(), etag: '"e"' })).toEqual({ status: 'not-modified' })
    await expect(fetcher.fetch(url.replace('/jwks', '/missing'), { signal: signal() })).rejects.toMatchObject(
      {
        code: 'jwks.http_status',
      },
    )
  })

  it('drops one leading byte order mark; a second one reaches the strict parser and is refused', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf])
    const url = await serve((request, response) => {
      const marks = request.url === '/jwks' ? 1 : 2
      response.writeHead(200).end(Buffer.concat([...Array(marks).fill(bom), Buffer.from('{"keys":[]}')]))
    })
    const fetcher = createFetchJWKSFetcher()
    const one = await fetcher.fetch(url, { signal: signal() })
    expect(one).toMatchObject({ status: 'ok', body: '{"keys":[]}' })
    const two = await fetcher.fetch(url.replace('/jwks', '/two'), { signal: signal() })
    expect(two).toMatchObject({ status: 'ok', body: '\ufeff{"keys":[]}' })
    if (two.status !== 'ok') return
    await expect(parseJWKSDocument(two.body, { maxBytes: 1024, maxKeys: 8 })).rejects.toMatchObject({
      code: 'jwks.document_invalid',
    })
  })

  it('uses an injected fetch function', async () => {
    const calls: string[] = []
    const fetcher = createFetchJWKSFetcher({
      fetch: async (input) => {
        calls.push(input)
        return new Response('{"keys":[]}', { status: 200 })
      },
    })
    expect(await fetcher.fetch('https://idp.example/jwks', { signal: signal() })).toMatchObject({
      status: 'ok',
    })
    expect(calls).toEqual(['https://idp.example/jwks'])
  })
})
