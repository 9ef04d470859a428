import { describe, expect, it } from 'vitest'
import type { AuthenticationMechanism, AuthenticationOutcome } from '../../src/authentication/index.js'
import { authenticated } from '../../src/authentication/index.js'
import { AuthorizationSnapshot } from '../../src/authorization/index.js'
import { PolicyEvaluator, type PolicyOutcome, required } from '../../src/policy/index.js'
import { headerMechanism, sourceOf } from './header-mechanism.js'

const statusOf = (outcome: PolicyOutcome) =>
  outcome.kind === 'granted' ? 200 : outcome.code === 'authentication.required' ? 401 : 503

function evaluatorOf(mechanisms: AuthenticationMechanism[], options: Partial<{ resolver: unknown }> = {}) {
  const evaluator = new PolicyEvaluator({
    mechanisms,
    ...(options.resolver === undefined ? {} : { authorizationResolver: options.resolver as never }),
  })
  return { evaluator, policy: evaluator.compile(required()) }
}

describe('synchronous evaluation', () => {
  it('settles without a promise when every mechanism and the resolver answer synchronously', () => {
    const { evaluator, policy } = evaluatorOf(
      [headerMechanism('a', { sync: true }), headerMechanism('b', { sync: true })],
      { resolver: () => ({ roles: ['admin'] }) },
    )
    const outcome = evaluator.begin(sourceOf({ 'x-a': 'ok:alice' })).evaluate(policy)
    expect(outcome).not.toBeInstanceOf(Promise)
    expect(outcome).toMatchObject({ kind: 'granted', context: { principal: { id: 'alice' } } })
    if (outcome instanceof Promise || outcome.kind !== 'granted') throw new Error('expected a grant')
    expect(outcome.context.snapshot.roles).toEqual(['admin'])
  })

  it('returns a promise as soon as one mechanism or the resolver is asynchronous, with the same verdict', async () => {
    const mixed = evaluatorOf([headerMechanism('a', { sync: true }), headerMechanism('b')])
    const pending = mixed.evaluator
      .begin(sourceOf({ 'x-a': 'ok:alice', 'x-b': 'ok:alice' }))
      .evaluate(mixed.policy)
    expect(pending).toBeInstanceOf(Promise)
    expect(statusOf(await pending)).toBe(200)
    const slowResolver = evaluatorOf([headerMechanism('a', { sync: true })], {
      resolver: async () => AuthorizationSnapshot.empty,
    })
    const resolved = slowResolver.evaluator
      .begin(sourceOf({ 'x-a': 'ok:alice' }))
      .evaluate(slowResolver.policy)
    expect(resolved).toBeInstanceOf(Promise)
    expect(statusOf(await resolved)).toBe(200)
  })

  it('keeps 401/503 precedence whether outcomes arrive synchronously or not', async () => {
    const cases: [string[], number][] = [
      [['ok:alice', 'bad'], 401],
      [['ok:alice', 'down'], 503],
      [['bad', 'throw'], 503],
      [['ok:alice', 'ok:bob'], 401],
      [['ok:alice', 'ok:alice'], 200],
    ]
    for (const [values, expected] of cases) {
      for (const syncFirst of [true, false]) {
        const mechanisms = values.map((_, index) =>
          headerMechanism(`m${index}`, { sync: index === 0 ? syncFirst : !syncFirst }),
        )
        const { evaluator, policy } = evaluatorOf(mechanisms)
        const headers = Object.fromEntries(values.map((value, index) => [`x-m${index}`, value]))
        const outcome = await evaluator.begin(sourceOf(headers)).evaluate(policy)
        expect(statusOf(outcome), `${values.join(',')} sync-first=${syncFirst}`).toBe(expected)
      }
    }
  })

  it('treats a synchronous throw, a malformed answer and a rejecting thenable as unavailable', async () => {
    const thenable: AuthenticationMechanism = {
      name: 'thenable',
      securityScheme: { type: 'apiKey', in: 'header', name: 'x-thenable' },
      authenticate: () =>
        // biome-ignore lint/suspicious/noThenProperty: a foreign thenable is what this test presents
        ({ then: (_ok: unknown, fail: (error: unknown) => void) => fail(new Error('boom')) }) as never,
    }
    const malformed: AuthenticationMechanism = {
      name: 'malformed',
      securityScheme: { type: 'apiKey', in: 'header', name: 'x-malformed' },
      authenticate: () =>
        ({ kind: 'authenticated', principal: { id: '' } }) as unknown as AuthenticationOutcome,
    }
    for (const mechanism of [headerMechanism('a', { sync: true }), thenable, malformed]) {
      const { evaluator, policy } = evaluatorOf([mechanism])
      const outcome = await evaluator.begin(sourceOf({ 'x-a': 'throw' })).evaluate(policy)
      expect(outcome, mechanism.name).toMatchObject({ kind: 'rejected', code: 'authentication.unavailable' })
    }
  })

  it('accepts a foreign thenable that resolves, and a resolver that throws synchronously is unavailable', async () => {
    const thenable: AuthenticationMechanism = {
      name: 'thenable',
      securityScheme: { type: 'apiKey', in: 'header', name: 'x-thenable' },
      authenticate: () =>
        ({
          // biome-ignore lint/suspicious/noThenProperty: a foreign thenable is what this test presents
          then: (ok: (value: AuthenticationOutcome) => void) =>
            ok(authenticated({ id: 'svc', kind: 'service' }, { mechanism: 'thenable', credentialType: 't' })),
        }) as never,
    }
    const granted = evaluatorOf([thenable])
    expect(statusOf(await granted.evaluator.begin(sourceOf({})).evaluate(granted.policy))).toBe(200)
    const throwing = evaluatorOf([headerMechanism('a', { sync: true })], {
      resolver: () => {
        throw new Error('grant store down')
      },
    })
    const outcome = throwing.evaluator.begin(sourceOf({ 'x-a': 'ok:alice' })).evaluate(throwing.policy)
    expect(outcome).not.toBeInstanceOf(Promise)
    expect(await outcome).toMatchObject({ kind: 'rejected', code: 'authentication.unavailable' })
  })

  it('memoizes per request: a second policy reuses the settled authentication and authorization', async () => {
    const a = headerMechanism('a')
    let resolutions = 0
    const { evaluator, policy } = evaluatorOf([a], {
      resolver: async () => {
        resolutions += 1
        return {}
      },
    })
    const evaluation = evaluator.begin(sourceOf({ 'x-a': 'ok:alice' }))
    expect(statusOf(await evaluation.evaluate(policy))).toBe(200)
    const again = evaluation.evaluate(policy)
    expect(again).not.toBeInstanceOf(Promise)
    expect(statusOf(await again)).toBe(200)
    expect(a.calls).toBe(1)
    expect(resolutions).toBe(1)
  })
})
