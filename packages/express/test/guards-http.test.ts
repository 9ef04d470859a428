import {
  type AuthorizationResolver,
  requiresAnyOf,
  requiresRole,
  requiresScope,
  requiresStepUp,
  requiresTenant,
  requiresTenantRole,
  type StepUpVerdict,
  type StepUpVerificationRequest,
  type StepUpVerifier,
} from '@portcullis/core/authorization'
import { ConfigurationError } from '@portcullis/core/errors'
import { anonymous, required } from '@portcullis/core/policy'
import express from 'express'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { createSecurity, type RejectionEvent } from '../src/index.js'
import { alice, bob, staticBearer, switchableApiKey } from './support/mechanisms.js'

/** Grants live in the "database": alice administers tenant A and views tenant B. */
const resolver: AuthorizationResolver = async ({ principal }) =>
  principal.id === 'alice'
    ? {
        roles: ['member'],
        scopes: ['projects:read', 'projects:write'],
        tenants: { A: ['admin', 'viewer'], B: ['viewer'] },
      }
    : { roles: ['member'], tenants: { C: ['admin'] } }

/** One-use step-up tokens with one winner under concurrency. */
class MemoryStepUp implements StepUpVerifier {
  readonly tokens = new Map<string, { purpose: string; accountId: string }>()
  calls = 0
  down = false
  async consume(request: StepUpVerificationRequest): Promise<StepUpVerdict> {
    this.calls += 1
    if (this.down) return { kind: 'unavailable', reason: 'down', retryAfterSeconds: 3 }
    const grant = this.tokens.get(request.token)
    this.tokens.delete(request.token)
    await new Promise((resolve) => setImmediate(resolve))
    return grant?.purpose === request.purpose && grant.accountId === request.accountId
      ? { kind: 'consumed' }
      : { kind: 'rejected', reason: 'no grant' }
  }
}

function tenantApp(events: RejectionEvent[] = []) {
  const stepUp = new MemoryStepUp()
  const apiKey = switchableApiKey({
    'alice-readonly-key': {
      principal: alice,
      // This key may only act as a viewer of tenant A, whatever alice holds.
      restrictions: { tenants: { A: ['viewer'] }, scopes: ['projects:read'] },
    },
  })
  const security = createSecurity({
    mechanisms: [
      staticBearer({ 'alice-token': { principal: alice }, 'bob-token': { principal: bob } }),
      apiKey.mechanism,
    ],
    authorizationResolver: resolver,
    stepUp: { verifier: stepUp },
    onRejection: (event) => events.push(event),
  })
  const router = security.router()
  const ok = (req: express.Request, res: express.Response) => {
    res.json({ tenant: req.params.tenantId, principal: req.security?.principal?.id })
  }
  router.get('/tenants/:tenantId/projects', { auth: required(), guards: [requiresTenant()] }, ok)
  router.delete(
    '/tenants/:tenantId/projects',
    { auth: required(), guards: [requiresTenantRole({ tenantParameter: 'tenantId', roles: ['admin'] })] },
    ok,
  )
  router.post('/projects', { auth: required(), guards: [requiresScope('projects:write')] }, ok)
  router.post(
    '/tenants/:tenantId/transfer',
    {
      auth: required(),
      guards: [requiresTenantRole({ roles: ['admin'] }), requiresStepUp('tenant-transfer')],
    },
    ok,
  )
  router.get('/any', { guards: [requiresAnyOf(requiresRole('root'), requiresRole('member'))] }, ok)
  const app = express()
  app.use(security.middleware)
  app.use(router)
  return { app, stepUp, apiKey }
}

const code = (response: request.Response) => [response.status, response.body.code]

describe('tenant guards through Express', () => {
  it('grants a member of the path tenant and denies a forged path tenant with 403', async () => {
    const { app } = tenantApp()
    const own = await request(app).get('/tenants/A/projects').set('Authorization', 'Bearer alice-token')
    expect(own.status).toBe(200)
    expect(own.body).toEqual({ tenant: 'A', principal: 'alice' })
    for (const forged of [
      '/tenants/C/projects',
      '/tenants/a/projects',
      '/tenants/A%20/projects',
      '/tenants/__proto__/projects',
    ]) {
      const response = await request(app).get(forged).set('Authorization', 'Bearer alice-token')
      expect(code(response), forged).toEqual([403, 'authorization.denied'])
    }
  })

  it('requires a listed role in the path tenant: viewer of B cannot delete in B', async () => {
    const { app } = tenantApp()
    const auth = { Authorization: 'Bearer alice-token' }
    expect((await request(app).delete('/tenants/A/projects').set(auth)).status).toBe(200)
    expect(code(await request(app).delete('/tenants/B/projects').set(auth))).toEqual([
      403,
      'authorization.denied',
    ])
    // bob administers C only; he cannot reach A by editing the path.
    const bobAuth = { Authorization: 'Bearer bob-token' }
    expect((await request(app).delete('/tenants/C/projects').set(bobAuth)).status).toBe(200)
    expect(code(await request(app).delete('/tenants/A/projects').set(bobAuth))).toEqual([
      403,
      'authorization.denied',
    ])
  })

  it('denies a tenant role removed by the credential restriction (403) while the snapshot holds it', async () => {
    const { app } = tenantApp()
    const viaKey = { 'x-api-key': 'alice-readonly-key' }
    expect((await request(app).get('/tenants/A/projects').set(viaKey)).status).toBe(200)
    expect(code(await request(app).delete('/tenants/A/projects').set(viaKey))).toEqual([
      403,
      'authorization.denied',
    ])
    expect(code(await request(app).get('/tenants/B/projects').set(viaKey))).toEqual([
      403,
      'authorization.denied',
    ])
    expect(code(await request(app).post('/projects').set(viaKey))).toEqual([403, 'authorization.denied'])
    expect((await request(app).post('/projects').set('Authorization', 'Bearer alice-token')).status).toBe(200)
  })

  it('keeps 401 / 503 ahead of guard denials in every order of credentials', async () => {
    const { app, apiKey } = tenantApp()
    const forged = '/tenants/C/projects'
    expect(code(await request(app).get(forged))).toEqual([401, 'authentication.required'])
    expect(code(await request(app).get(forged).set('Authorization', 'Bearer nope'))).toEqual([
      401,
      'authentication.required',
    ])
    const both = { Authorization: 'Bearer alice-token', 'x-api-key': 'wrong-key' }
    expect(code(await request(app).get(forged).set(both))).toEqual([401, 'authentication.required'])
    apiKey.state.down = true
    const bearerValid = { Authorization: 'Bearer alice-token', 'x-api-key': 'alice-readonly-key' }
    const bearerInvalid = { Authorization: 'Bearer nope', 'x-api-key': 'alice-readonly-key' }
    for (const headers of [bearerValid, bearerInvalid]) {
      const response = await request(app).get(forged).set(headers)
      expect(code(response)).toEqual([503, 'authentication.unavailable'])
    }
  })

  it('never names the failing grant in the body but tells onRejection', async () => {
    const events: RejectionEvent[] = []
    const { app } = tenantApp(events)
    const response = await request(app)
      .delete('/tenants/B/projects')
      .set('Authorization', 'Bearer alice-token')
    expect(response.body).toEqual({
      type: 'about:blank',
      title: 'Forbidden',
      status: 403,
      code: 'authorization.denied',
      detail: 'Permission denied',
    })
    expect(response.text).not.toMatch(/admin|tenant|role/i)
    expect(events[0]).toMatchObject({
      status: 403,
      reason: 'authorization.missing_tenant_role',
      route: '/tenants/:tenantId/projects',
    })
  })

  it('runs combinators over the resolved snapshot', async () => {
    const { app } = tenantApp()
    expect((await request(app).get('/any').set('Authorization', 'Bearer bob-token')).status).toBe(200)
  })
})

describe('requiresStepUp through Express', () => {
  const transfer = (app: express.Express, token?: string) => {
    const call = request(app).post('/tenants/A/transfer').set('Authorization', 'Bearer alice-token')
    return token === undefined ? call : call.set('portcullis-step-up', token)
  }

  it('consumes a fresh credential once: 200, then 401 step-up.required on replay', async () => {
    const { app, stepUp } = tenantApp()
    stepUp.tokens.set('fresh', { purpose: 'tenant-transfer', accountId: 'alice' })
    expect((await transfer(app, 'fresh')).status).toBe(200)
    expect(code(await transfer(app, 'fresh'))).toEqual([401, 'step-up.required'])
    expect(code(await transfer(app))).toEqual([401, 'step-up.required'])
  })

  it('does not burn the credential when the tenant guard denies first', async () => {
    const { app, stepUp } = tenantApp()
    stepUp.tokens.set('fresh', { purpose: 'tenant-transfer', accountId: 'alice' })
    const denied = await request(app)
      .post('/tenants/B/transfer')
      .set('Authorization', 'Bearer alice-token')
      .set('portcullis-step-up', 'fresh')
    expect(code(denied)).toEqual([403, 'authorization.denied'])
    expect(stepUp.calls).toBe(0)
    expect((await transfer(app, 'fresh')).status).toBe(200)
  })

  it('refuses a credential issued for another purpose, and answers 503 when the service is down', async () => {
    const { app, stepUp } = tenantApp()
    stepUp.tokens.set('other', { purpose: 'delete-account', accountId: 'alice' })
    expect(code(await transfer(app, 'other'))).toEqual([401, 'step-up.required'])
    stepUp.down = true
    const response = await transfer(app, 'anything')
    expect(code(response)).toEqual([503, 'step-up.unavailable'])
    expect(response.headers['retry-after']).toBe('3')
  })

  it('has one winner when the same credential is redeemed concurrently over HTTP', async () => {
    const { app, stepUp } = tenantApp()
    stepUp.tokens.set('race', { purpose: 'tenant-transfer', accountId: 'alice' })
    const responses = await Promise.all(Array.from({ length: 8 }, () => transfer(app, 'race')))
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1)
    expect(responses.filter((response) => response.status === 401)).toHaveLength(7)
  })
})

describe('route configuration errors are startup errors', () => {
  const security = () =>
    createSecurity({
      mechanisms: [staticBearer({}), switchableApiKey({}).mechanism],
      authorizationResolver: resolver,
    })
  const codeOf = (fn: () => unknown) => {
    try {
      fn()
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError)
      return (error as ConfigurationError).code
    }
    return 'no error'
  }
  const handler = (_req: express.Request, res: express.Response) => {
    res.end()
  }

  it('rejects unknown mechanisms, bad guards and unreadable parameters when the route is registered', () => {
    const router = security().router()
    expect(codeOf(() => router.get('/a', { auth: required('session') }, handler))).toBe(
      'policy.unknown_mechanism',
    )
    expect(codeOf(() => router.get('/b', { guards: [requiresTenant()] }, handler))).toBe(
      'route.unknown_parameter',
    )
    expect(codeOf(() => router.get('/c{/:tenantId}', { guards: [requiresTenant()] }, handler))).toBe(
      'route.unknown_parameter',
    )
    expect(codeOf(() => router.get('/d', { auth: anonymous(), guards: [requiresRole('x')] }, handler))).toBe(
      'route.guards_without_authentication',
    )
    expect(codeOf(() => router.get('/e', { guards: [requiresStepUp('x')] }, handler))).toBe(
      'authorization.step_up_not_configured',
    )
    expect(codeOf(() => router.get('/f', { auth: { kind: 'everyone' } as never }, handler))).toBe(
      'route.invalid_options',
    )
    expect(codeOf(() => router.get('/g', {}))).toBe('route.invalid_handlers')
    expect(codeOf(() => router.get('no-slash', handler))).toBe('route.invalid_path')
    expect(codeOf(() => router.get('/h/(x)', handler))).toBe('route.invalid_path')
    expect(codeOf(() => security().router({ prefix: '/api/' }))).toBe('route.invalid_prefix')
    expect(codeOf(() => createSecurity({ mechanisms: [staticBearer({}, { name: 'bad name' })] }))).toBe(
      'security.invalid_mechanism_name',
    )
    expect(
      codeOf(() => createSecurity({ mechanisms: [staticBearer({})], defaultPolicy: required('nope') })),
    ).toBe('policy.unknown_mechanism')
  })

  it('rejects the same method and path twice, across routers of one instance', () => {
    const instance = security()
    instance.router().get('/x/:id', handler)
    expect(codeOf(() => instance.router().get('/x/:id', handler))).toBe('route.duplicate')
    expect(codeOf(() => instance.router({ prefix: '/x' }).get('/:id', handler))).toBe('route.duplicate')
    expect(codeOf(() => instance.router().post('/x/:id', handler))).toBe('no error')
    expect(instance.routes.list()).toHaveLength(2)
  })
})
