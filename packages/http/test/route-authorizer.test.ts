import { authenticated, none } from '@portcullis/core/authentication'
import { requiresScope } from '@portcullis/core/authorization'
import { anonymous, required } from '@portcullis/core/policy'
import { describe, expect, it } from 'vitest'
import { createSecurityCore, RawCredentialSource, type RouteRequest } from '../src/index.js'

const bearer = {
  name: 'bearer',
  securityScheme: { type: 'http', scheme: 'bearer' } as const,
  authenticate: (source: { header(name: string): string | undefined }) =>
    source.header('authorization') === 'Bearer alice'
      ? authenticated({ id: 'alice', kind: 'user' }, { mechanism: 'bearer', credentialType: 'bearer-token' })
      : none(),
}

function core(onRejection: () => void = () => {}) {
  return createSecurityCore({ mechanisms: [bearer], onRejection }, 'test')
}

const requestOf = (headers: string[]) => {
  const raw = { method: 'GET', url: '/r', rawHeaders: headers, headers: {} }
  const route: RouteRequest = { params: {}, header: () => undefined, cookieHeader: undefined }
  return { source: new RawCredentialSource(raw), route }
}

describe('the route decision', () => {
  it('settles synchronously when the mechanisms and guards do, so an adapter can continue in the same turn', () => {
    const security = core()
    const route = security.compileRoute('GET', '/r', { auth: required() })
    const { source, route: request } = requestOf(['Authorization', 'Bearer alice'])
    const outcome = route.authorizer?.(security.evaluator.begin(source), request)
    expect(outcome).not.toBeInstanceOf(Promise)
    expect(outcome).toMatchObject({ granted: true, noStore: true, context: { principal: { id: 'alice' } } })
  })

  it('refuses with the Bearer challenge, and an observer that throws does not change the refusal', () => {
    const security = core(() => {
      throw new Error('logger down')
    })
    const route = security.compileRoute('GET', '/r', { auth: required(), guards: [requiresScope('admin')] })
    const anonymousCaller = requestOf([])
    expect(
      route.authorizer?.(security.evaluator.begin(anonymousCaller.source), anonymousCaller.route),
    ).toMatchObject({
      granted: false,
      problem: { status: 401, code: 'authentication.required', headers: { 'WWW-Authenticate': 'Bearer' } },
    })
    const alice = requestOf(['Authorization', 'Bearer alice'])
    expect(route.authorizer?.(security.evaluator.begin(alice.source), alice.route)).toMatchObject({
      granted: false,
      problem: { status: 403, code: 'authorization.denied' },
    })
  })

  it('compiles no authorizer for a route that does no credential work, and refuses guards there', () => {
    const security = core()
    expect(security.compileRoute('GET', '/open', { auth: anonymous() }).authorizer).toBeUndefined()
    expect(() =>
      security.compileRoute('GET', '/open', { auth: anonymous(), guards: [requiresScope('a')] }),
    ).toThrow(expect.objectContaining({ code: 'route.guards_without_authentication' }))
  })
})
