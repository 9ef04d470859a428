// Portcullis beside `@fastify/helmet`, a plugin many Fastify apps register: helmet augments Fastify's
// `RouteOptions`, which must not change what route `config` accepts (this file typechecks only if the
// Portcullis route options stay the type of `config`), and both plugins' headers reach the client.
import helmet from '@fastify/helmet'
import { type AuthenticationMechanism, authenticated, none } from '@portcullis/core/authentication'
import { anonymous, required } from '@portcullis/core/policy'
import Fastify from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { portcullis } from '../src/index.js'

const header: AuthenticationMechanism = {
  name: 'header',
  securityScheme: { type: 'apiKey', in: 'header', name: 'x-principal' },
  authenticate: (source) => {
    const id = source.header('x-principal')
    return id === undefined
      ? none()
      : authenticated({ id, kind: 'service' }, { mechanism: 'header', credentialType: 'header' })
  },
}

const app = Fastify()

beforeAll(async () => {
  await app.register(helmet, { contentSecurityPolicy: false, xFrameOptions: { action: 'sameorigin' } })
  await app.register(portcullis, { mechanisms: [header] })
  app.get('/private', { config: { auth: required('header') } }, async (request) => ({
    id: request.security.principal?.id,
  }))
  app.get('/public', { config: { auth: anonymous() } }, async () => ({ ok: true }))
  await app.ready()
})
afterAll(() => app.close())

describe('Portcullis with @fastify/helmet', () => {
  it('refuses a route whose policy is not met, and grants it with the credential', async () => {
    const refused = await app.inject({ method: 'GET', url: '/private' })
    expect(refused.statusCode).toBe(401)
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/)
    const granted = await app.inject({ method: 'GET', url: '/private', headers: { 'x-principal': 'svc-1' } })
    expect(granted.statusCode).toBe(200)
    expect(granted.json()).toEqual({ id: 'svc-1' })
  })

  it('sends the headers of both plugins, and the Portcullis baseline value on a name both set', async () => {
    const answer = await app.inject({ method: 'GET', url: '/public' })
    expect(answer.statusCode).toBe(200)
    // helmet only
    expect(answer.headers['origin-agent-cluster']).toBe('?1')
    // Portcullis only (helmet's CSP is off here)
    expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'")
    // both set it: Portcullis's baseline value reaches the client
    expect(answer.headers['x-frame-options']).toBe('DENY')
  })
})
