// Fastify's server options for a Portcullis app, as the docs show them: the router's own URL errors as
// problem+json and a parameter limit every Portcullis id fits, on a real server.
import { anonymous } from '@portcullis/core/policy'
import { portcullis, portcullisFrameworkErrors, portcullisServerOptions } from '@portcullis/fastify'
import Fastify from 'fastify'
import { afterAll, expect, it } from 'vitest'

// #region server-options
// frameworkErrors: portcullisFrameworkErrors, and routerOptions.maxParamLength raised to 2048.
const app = Fastify(portcullisServerOptions({ logger: false }))
await app.register(portcullis, { mechanisms: [] })
// #endregion server-options

app.get('/members/:accountId', { config: { auth: anonymous() } }, async (request) => ({
  length: (request.params as { accountId: string }).accountId.length,
}))
const url = await app.listen({ port: 0, host: '127.0.0.1' })
afterAll(() => app.close())

it('routes a 255-character member id and answers a malformed URL as problem+json', async () => {
  const member = await fetch(`${url}/members/${'m'.repeat(255)}`)
  expect(await member.json()).toEqual({ length: 255 })

  const malformed = await fetch(`${url}/members/%E0%A4%A`)
  expect(malformed.status).toBe(400)
  expect(malformed.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(await malformed.json()).toMatchObject({ code: 'request.malformed_url' })
})

it('the handler alone, on a server keeping the default limit: 414 problem+json, no path echoed', async () => {
  // #region framework-errors-only
  const small = Fastify({ frameworkErrors: portcullisFrameworkErrors })
  // #endregion framework-errors-only
  await small.register(portcullis, { mechanisms: [] })
  small.get('/members/:accountId', { config: { auth: anonymous() } }, async () => ({}))
  const smallUrl = await small.listen({ port: 0, host: '127.0.0.1' })
  try {
    const tooLong = await fetch(`${smallUrl}/members/${'m'.repeat(101)}`)
    expect(tooLong.status).toBe(414)
    expect(tooLong.headers.get('cache-control')).toContain('no-store')
    const body = await tooLong.text()
    expect(JSON.parse(body)).toMatchObject({ status: 414, code: 'request.url_too_long' })
    expect(body).not.toContain('mmmm')
  } finally {
    await small.close()
  }
})
