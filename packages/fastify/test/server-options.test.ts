import { anonymous } from '@portcullis/core/policy'
import { HttpProblem } from '@portcullis/http/problem'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import {
  PORTCULLIS_MAX_PARAM_LENGTH,
  portcullis,
  portcullisFrameworkErrors,
  portcullisServerOptions,
} from '../src/index.js'

const apps: FastifyInstance[] = []
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()))
})

/** A real server: the options given, the plugin (unless `plugin: false`), one route reading `:id`. */
async function serve(
  options: FastifyServerOptions,
  plugin: false | { headers?: Record<string, string | false> } = {},
): Promise<string> {
  const app = Fastify(options)
  apps.push(app)
  if (plugin !== false) await app.register(portcullis, { mechanisms: [], ...plugin })
  app.get('/items/:id/detail', { config: { auth: anonymous() } }, async (request) => {
    const { id } = request.params as { id: string }
    if (id.startsWith('x')) throw new HttpProblem({ status: 404, code: 'item.not_found' })
    return { id: id.length }
  })
  return app.listen({ port: 0, host: '127.0.0.1' })
}

async function answer(url: string) {
  const response = await fetch(url)
  return { status: response.status, headers: response.headers, text: await response.text() }
}

function expectProblem(got: Awaited<ReturnType<typeof answer>>, status: number, code: string) {
  expect(got.status).toBe(status)
  expect(got.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(got.headers.get('cache-control')).toContain('no-store')
  const body = JSON.parse(got.text) as { status: number; code: string }
  expect(body).toMatchObject({ status, code })
}

const LONG_ID = 'x'.repeat(300)

describe('portcullisServerOptions on a real Fastify server', () => {
  it('routes a 300-character id to the route, and the longest passkey credential id (1364)', async () => {
    const url = await serve(portcullisServerOptions())
    const long = await answer(`${url}/items/${LONG_ID}/detail`)
    expectProblem(long, 404, 'item.not_found')
    const credential = await answer(`${url}/items/${'A'.repeat(1364)}/detail`)
    expect(credential.status).toBe(200)
    expect(JSON.parse(credential.text)).toEqual({ id: 1364 })
    // 255 member-id characters that each decode from a three-byte percent-encoding still fit
    const encoded = await answer(`${url}/items/${encodeURIComponent('é'.repeat(255))}/detail`)
    expect(JSON.parse(encoded.text)).toEqual({ id: 255 })
  })

  it('answers a parameter past the limit 414 problem+json, never echoing the path', async () => {
    const url = await serve(portcullisServerOptions())
    const tooLong = 'y'.repeat(PORTCULLIS_MAX_PARAM_LENGTH + 1)
    const got = await answer(`${url}/items/${tooLong}/detail`)
    expectProblem(got, 414, 'request.url_too_long')
    expect(got.text).not.toContain('yyyy')
    expect(got.text).not.toContain('/items/')
  })
})

describe('portcullisFrameworkErrors', () => {
  it("without a larger maxParamLength: Fastify's 414 as problem+json with the baseline, no path", async () => {
    const url = await serve({ frameworkErrors: portcullisFrameworkErrors })
    const got = await answer(`${url}/items/${LONG_ID}/detail?token=secret-value`)
    expectProblem(got, 414, 'request.url_too_long')
    expect(got.headers.get('x-frame-options')).toBe('DENY')
    expect(got.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(got.headers.get('x-content-type-options')).toBe('nosniff')
    expect(got.text).not.toContain('xxxx')
    expect(got.text).not.toContain('secret-value')
    expect(got.text).not.toContain('FST_ERR')
  })

  it('a malformed percent-encoding is 400 request.malformed_url, the path not echoed', async () => {
    const url = await serve(portcullisServerOptions())
    const got = await answer(`${url}/items/%E0%A4%A/detail`)
    expectProblem(got, 400, 'request.malformed_url')
    expect(got.headers.get('x-frame-options')).toBe('DENY')
    expect(got.text).not.toContain('%E0')
    expect(got.text).not.toContain('/items/')
  })

  it("sends the plugin's own header overrides", async () => {
    const url = await serve(portcullisServerOptions(), {
      headers: { 'X-Frame-Options': 'SAMEORIGIN', 'Referrer-Policy': false },
    })
    const got = await answer(`${url}/items/%E0%A4%A/detail`)
    expectProblem(got, 400, 'request.malformed_url')
    expect(got.headers.get('x-frame-options')).toBe('SAMEORIGIN')
    expect(got.headers.get('referrer-policy')).toBeNull()
    // the same baseline as any other answer of the app
    const routed = await answer(`${url}/items/${LONG_ID}/detail`)
    expect(routed.headers.get('x-frame-options')).toBe('SAMEORIGIN')
    expect(routed.headers.get('referrer-policy')).toBeNull()
  })

  it('without the plugin: the default baseline', async () => {
    const url = await serve({ frameworkErrors: portcullisFrameworkErrors }, false)
    const got = await answer(`${url}/items/${LONG_ID}/detail`)
    expectProblem(got, 414, 'request.url_too_long')
    expect(got.headers.get('x-frame-options')).toBe('DENY')
    expect(got.headers.get('strict-transport-security')).toContain('max-age=')
  })

  it("passes any other framework error on to the error handler (the plugin's: problem+json)", async () => {
    const url = await constrained(true)
    const got = await answer(`${url}/tenanted`)
    expectProblem(got, 500, 'internal.error')
    expect(got.headers.get('x-frame-options')).toBe('DENY')
    expect(got.text).not.toContain('secret-dsn')
    expect(got.text).not.toContain('FST_ERR')
  })

  it("without the plugin another framework error gets Fastify's own error handler", async () => {
    const url = await constrained(false)
    const got = await answer(`${url}/tenanted`)
    expect(got.status).toBe(500)
    expect(got.headers.get('content-type')).toMatch(/^application\/json/)
    expect(JSON.parse(got.text)).toMatchObject({ code: 'FST_ERR_ASYNC_CONSTRAINT' })
    expect(got.text).not.toContain('secret-dsn')
  })
})

/** A server whose only route has an async constraint that always fails (Fastify's FST_ERR_ASYNC_CONSTRAINT). */
async function constrained(plugin: boolean): Promise<string> {
  const stored = new Map<unknown, unknown>()
  const failing = {
    name: 'tenant',
    storage: () => ({
      get: (value: unknown) => stored.get(value) ?? null,
      set: (value: unknown, handler: unknown) => void stored.set(value, handler),
    }),
    deriveConstraint: (_request: unknown, _context: unknown, done: (error: Error | null) => void) =>
      done(new Error('the constraint store is down: secret-dsn')),
    validate: () => true,
  } as unknown as NonNullable<FastifyServerOptions['constraints']>[string]
  const app = Fastify({ ...portcullisServerOptions(), constraints: { tenant: failing } })
  apps.push(app)
  if (plugin) await app.register(portcullis, { mechanisms: [] })
  app.get('/tenanted', { constraints: { tenant: 'a' }, config: { auth: anonymous() } }, async () => 'ok')
  return app.listen({ port: 0, host: '127.0.0.1' })
}

describe('portcullisServerOptions merges', () => {
  it('keeps the other options, a larger limit and an own frameworkErrors', () => {
    const own = () => {}
    const merged = portcullisServerOptions({
      bodyLimit: 10,
      routerOptions: { ignoreTrailingSlash: true, maxParamLength: 5000 },
      frameworkErrors: own,
    })
    expect(merged).toMatchObject({ bodyLimit: 10, frameworkErrors: own })
    expect(merged.routerOptions).toEqual({ ignoreTrailingSlash: true, maxParamLength: 5000 })
  })

  it('raises a smaller limit, takes a top-level one into routerOptions (never both)', () => {
    const small = portcullisServerOptions({ routerOptions: { maxParamLength: 100 } })
    expect(small.routerOptions.maxParamLength).toBe(PORTCULLIS_MAX_PARAM_LENGTH)
    expect(small.frameworkErrors).toBe(portcullisFrameworkErrors)
    const topLevel = portcullisServerOptions({ maxParamLength: 9000 })
    expect(topLevel.routerOptions.maxParamLength).toBe(9000)
    expect('maxParamLength' in topLevel).toBe(false)
  })
})

describe("Fastify's own answer without the options (what they replace)", () => {
  it('is 414 application/json echoing the path, without the baseline', async () => {
    const url = await serve({})
    const got = await answer(`${url}/items/${LONG_ID}/detail`)
    expect(got.status).toBe(414)
    expect(got.headers.get('content-type')).toMatch(/^application\/json/)
    expect(got.text).toContain(LONG_ID)
    expect(got.headers.get('x-frame-options')).toBeNull()
  })
})
