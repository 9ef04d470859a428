import { describe, expect, it } from 'vitest'
import { type AuthorizationResolver, grantsFromCredentials } from '../../src/authorization/index.js'
import { anonymous, optional, PolicyEvaluator, required } from '../../src/policy/index.js'
import { headerMechanism, sourceOf } from './header-mechanism.js'

describe('authorization resolver', () => {
  it('runs once per request even when several policies are evaluated on it', async () => {
    let calls = 0
    const resolver: AuthorizationResolver = async ({ principal }) => {
      calls += 1
      return { roles: [`owner-of-${principal.id}`] }
    }
    const a = headerMechanism('a')
    const evaluator = new PolicyEvaluator({
      mechanisms: [a, headerMechanism('b')],
      authorizationResolver: resolver,
    })
    const evaluation = evaluator.begin(sourceOf({ 'x-a': 'ok:alice' }))
    const results = await Promise.all([
      evaluation.evaluate(evaluator.compile(required())),
      evaluation.evaluate(evaluator.compile(required('a'))),
      evaluation.evaluate(evaluator.compile(optional(required()))),
    ])
    expect(calls).toBe(1)
    expect(a.calls).toBe(1)
    for (const result of results) {
      expect(result.kind === 'granted' && result.context.snapshot.roles).toEqual(['owner-of-alice'])
    }
  })

  it('is not called for anonymous requests or public routes', async () => {
    let calls = 0
    const evaluator = new PolicyEvaluator({
      mechanisms: [headerMechanism('a')],
      authorizationResolver: () => {
        calls += 1
        return {}
      },
    })
    await evaluator.begin(sourceOf({})).evaluate(evaluator.compile(optional(required())))
    await evaluator.begin(sourceOf({ 'x-a': 'ok:alice' })).evaluate(evaluator.compile(anonymous()))
    await evaluator.begin(sourceOf({ 'x-a': 'bad' })).evaluate(evaluator.compile(required()))
    expect(calls).toBe(0)
  })

  it('maps null to 401, a throw or malformed snapshot to 503', async () => {
    const cases: [AuthorizationResolver, string][] = [
      [() => null, 'authentication.required'],
      [
        () => {
          throw new Error('db down')
        },
        'authentication.unavailable',
      ],
      [async () => Promise.reject(new Error('timeout')), 'authentication.unavailable'],
      [() => ({ roles: [' admin'] }), 'authentication.unavailable'],
      [() => ({ roles: 'admin' as unknown as string[] }), 'authentication.unavailable'],
      [() => ({ tenants: { '': ['admin'] } }), 'authentication.unavailable'],
    ]
    for (const [authorizationResolver, code] of cases) {
      const evaluator = new PolicyEvaluator({ mechanisms: [headerMechanism('a')], authorizationResolver })
      const outcome = await evaluator
        .begin(sourceOf({ 'x-a': 'ok:alice' }))
        .evaluate(evaluator.compile(required()))
      expect(outcome).toMatchObject({ kind: 'rejected', code })
    }
  })

  it('narrows the snapshot by every credential restriction: grants of several credentials intersect', async () => {
    const evaluator = new PolicyEvaluator({
      mechanisms: [
        headerMechanism('a', {
          restrictions: { scopes: ['read', 'write'], tenants: { A: ['admin', 'viewer'] } },
        }),
        headerMechanism('b', { restrictions: { scopes: ['read', 'delete'], roles: ['viewer'] } }),
      ],
      authorizationResolver: () => ({
        scopes: ['read', 'write', 'delete'],
        roles: ['admin', 'viewer'],
        tenants: { A: ['admin', 'viewer'], B: ['admin'] },
        attributes: { plan: 'gold' },
      }),
    })
    const both = await evaluator
      .begin(sourceOf({ 'x-a': 'ok:alice', 'x-b': 'ok:alice' }))
      .evaluate(evaluator.compile(required()))
    expect(both.kind === 'granted' && both.context.snapshot.toJSON()).toEqual({
      scopes: ['read'],
      roles: ['viewer'],
      capabilities: [],
      teams: [],
      tenants: { A: ['viewer'] },
      attributes: { plan: 'gold' },
    })
    const onlyA = await evaluator
      .begin(sourceOf({ 'x-a': 'ok:alice' }))
      .evaluate(evaluator.compile(required()))
    expect(onlyA.kind === 'granted' && onlyA.context.snapshot.toJSON()).toMatchObject({
      scopes: ['read', 'write'],
      roles: ['admin', 'viewer'],
      tenants: { A: ['admin', 'viewer'] },
    })
  })

  it('without a resolver grants nothing, and a restricted credential cannot widen that', async () => {
    const plain = new PolicyEvaluator({ mechanisms: [headerMechanism('a')] })
    const restricted = new PolicyEvaluator({
      mechanisms: [headerMechanism('a', { restrictions: { scopes: ['reports:read'], roles: ['admin'] } })],
    })
    for (const evaluator of [plain, restricted]) {
      const outcome = await evaluator
        .begin(sourceOf({ 'x-a': 'ok:alice' }))
        .evaluate(evaluator.compile(required()))
      if (outcome.kind !== 'granted') throw new Error('expected a grant')
      expect([outcome.context.snapshot.scopes, outcome.context.snapshot.roles]).toEqual([[], []])
      expect(outcome.context.snapshot.hasScope('reports:read')).toBe(false)
    }
  })

  it('grantsFromCredentials turns credential restrictions into grants, intersecting several', async () => {
    const evaluator = new PolicyEvaluator({
      mechanisms: [
        headerMechanism('a', {
          restrictions: { scopes: ['read', 'write'], tenants: { A: ['x'], B: ['y'] } },
        }),
        headerMechanism('b', { restrictions: { scopes: ['write'], tenants: { A: ['x', 'z'] } } }),
      ],
      authorizationResolver: grantsFromCredentials,
    })
    const outcome = await evaluator
      .begin(sourceOf({ 'x-a': 'svc:ci', 'x-b': 'svc:ci' }))
      .evaluate(evaluator.compile(required()))
    expect(outcome.kind === 'granted' && outcome.context.snapshot.toJSON()).toMatchObject({
      scopes: ['write'],
      roles: [],
      tenants: { A: ['x'] },
    })
  })
})
