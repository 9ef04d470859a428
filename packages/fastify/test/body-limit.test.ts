import { request as httpRequest } from 'node:http'
import { anonymous } from '@portcullis/core/policy'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { fastifyProblemFor, portcullis } from '../src/index.js'

const apps: FastifyInstance[] = []
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()))
})

async function appWith(serverOptions: { bodyLimit?: number } = {}) {
  const app = Fastify(serverOptions)
  apps.push(app)
  await app.register(portcullis, { mechanisms: [] })
  return app
}

const problemOf = (answer: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) => {
  expect(answer.statusCode).toBe(413)
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/)
  expect(answer.headers['cache-control']).toContain('no-store')
  return answer.json() as { code: string; detail?: string; title: string }
}

/** A POST whose body is sent chunked (no Content-Length), over real HTTP. */
function chunkedPost(url: string, body: string): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
      (incoming) => {
        const chunks: Buffer[] = []
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          }),
        )
      },
    )
    outgoing.on('error', reject)
    for (let offset = 0; offset < body.length; offset += 1024)
      outgoing.write(body.slice(offset, offset + 1024))
    outgoing.end()
  })
}

describe('a body over its limit is a 413 problem naming the limit, as on Express', () => {
  it("names Fastify's bodyLimit option on a route without its own", async () => {
    const app = await appWith({ bodyLimit: 2048 })
    app.post('/notes', { config: { auth: anonymous() } }, async () => 'ok')
    const answer = await app.inject({ method: 'POST', url: '/notes', payload: { note: 'x'.repeat(4096) } })
    expect(problemOf(answer)).toEqual({
      type: 'about:blank',
      title: 'Content Too Large',
      status: 413,
      code: 'request.body_too_large',
      detail: 'the body must be at most 2048 bytes',
    })
    const small = await app.inject({ method: 'POST', url: '/notes', payload: { note: 'hi' } })
    expect(small.statusCode).toBe(200)
  })

  it("names the route's own bodyLimit over Fastify's", async () => {
    const app = await appWith({ bodyLimit: 2048 })
    app.post('/upload', { config: { auth: anonymous() }, bodyLimit: 64 }, async () => 'ok')
    const answer = await app.inject({ method: 'POST', url: '/upload', payload: { big: 'x'.repeat(200) } })
    expect(problemOf(answer).detail).toBe('the body must be at most 64 bytes')
  })

  it("names Fastify's default (1 MiB) when nothing is configured", async () => {
    const app = await appWith()
    app.post('/notes', { config: { auth: anonymous() } }, async () => 'ok')
    const payload = { note: 'x'.repeat(1024 * 1024 + 1) }
    const answer = await app.inject({ method: 'POST', url: '/notes', payload })
    expect(problemOf(answer).detail).toBe('the body must be at most 1048576 bytes')
  })

  it('names the limit of a chunked body (no Content-Length) refused while it arrives', async () => {
    const app = await appWith({ bodyLimit: 4096 })
    app.post('/notes', { config: { auth: anonymous() } }, async () => 'ok')
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    const answer = await chunkedPost(`${url}/notes`, JSON.stringify({ note: 'x'.repeat(20_000) }))
    expect(answer.status).toBe(413)
    expect(answer.json).toMatchObject({
      code: 'request.body_too_large',
      detail: 'the body must be at most 4096 bytes',
    })
  })

  it("names no limit when a content-type parser's own, smaller limit refused the body", async () => {
    const app = await appWith({ bodyLimit: 4096 })
    app.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: 16 }, (_request, body, done) =>
      done(null, body),
    )
    app.post('/import', { config: { auth: anonymous() } }, async () => 'ok')
    const answer = await app.inject({
      method: 'POST',
      url: '/import',
      headers: { 'content-type': 'text/csv' },
      payload: 'a,b,c\n'.repeat(20),
    })
    // the declared 120 bytes are within the route's 4096: the parser's limit refused it, and it is not named
    expect(problemOf(answer).detail).toBe('The request body is too large')
  })

  it('fastifyProblemFor without a request keeps the generic detail', () => {
    const error = Object.assign(new Error('Request body is too large'), {
      code: 'FST_ERR_CTP_BODY_TOO_LARGE',
      statusCode: 413,
    })
    expect(fastifyProblemFor(error)).toMatchObject({ status: 413, detail: 'The request body is too large' })
  })
})
