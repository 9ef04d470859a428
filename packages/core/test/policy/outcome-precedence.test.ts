import { describe, expect, it } from 'vitest'
import { AuthorizationSnapshot } from '../../src/authorization/index.js'
import { optional, PolicyEvaluator, type PolicyOutcome, required } from '../../src/policy/index.js'
import { headerMechanism, sourceOf } from './header-mechanism.js'

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]]
  return items.flatMap((item, index) =>
    permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  )
}

const statusOf = (outcome: PolicyOutcome) =>
  outcome.kind === 'granted' ? 200 : outcome.code === 'authentication.required' ? 401 : 503

/**
 * Evaluates `required()` with credentials assigned to mechanisms m0..mN in the given registry order, with
 * completion delays reversed from registration so that both registry order and completion order vary.
 */
async function evaluate(values: readonly string[], delays: readonly number[]) {
  const mechanisms = values.map((_, index) => headerMechanism(`m${index}`, { delayMs: delays[index] ?? 0 }))
  const evaluator = new PolicyEvaluator({ mechanisms })
  const headers = Object.fromEntries(values.map((value, index) => [`x-m${index}`, value]))
  const outcome = await evaluator.begin(sourceOf(headers)).evaluate(evaluator.compile(required()))
  expect(mechanisms.every((mechanism) => mechanism.calls === 1)).toBe(true)
  return outcome
}

describe('401 / 503 precedence', () => {
  const cases: [string, string[], number][] = [
    ['valid + invalid', ['ok:alice', 'bad'], 401],
    ['valid + unavailable', ['ok:alice', 'down'], 503],
    ['invalid + unavailable', ['bad', 'down'], 503],
    ['valid + throwing', ['ok:alice', 'throw'], 503],
    ['invalid + throwing', ['bad', 'throw'], 503],
    ['valid + invalid + unavailable', ['ok:alice', 'bad', 'down'], 503],
    ['valid + two invalid', ['ok:alice', 'bad', 'bad'], 401],
    ['valid + malformed', ['ok:alice', 'ok:'], 401],
  ]
  for (const [label, values, expected] of cases) {
    it(`${label} is ${expected} in every registration and completion order`, async () => {
      for (const order of permutations(values)) {
        for (const delays of [order.map(() => 0), order.map((_, index) => (order.length - index) * 3)]) {
          expect(statusOf(await evaluate(order, delays)), order.join(',')).toBe(expected)
        }
      }
    })
  }

  it('reports the longest Retry-After among unavailable mechanisms', async () => {
    const outcome = await evaluate(['down:7', 'down', 'down:30', 'bad'], [0, 0, 0, 0])
    expect(outcome).toMatchObject({
      kind: 'rejected',
      code: 'authentication.unavailable',
      retryAfterSeconds: 30,
    })
    const noHint = await evaluate(['down', 'ok:alice'], [0, 0])
    expect(noHint.kind === 'rejected' && 'retryAfterSeconds' in noHint).toBe(false)
  })

  it('never downgrades an invalid credential to absent, even under optional()', async () => {
    const mechanisms = [headerMechanism('a'), headerMechanism('b')]
    const evaluator = new PolicyEvaluator({ mechanisms })
    const policy = evaluator.compile(optional(required('a')))
    const outcome = await evaluator.begin(sourceOf({ 'x-a': 'bad' })).evaluate(policy)
    expect(statusOf(outcome)).toBe(401)
    // An invalid credential of a mechanism the policy does not name still fails the request.
    const other = await evaluator.begin(sourceOf({ 'x-a': 'ok:alice', 'x-b': 'bad' })).evaluate(policy)
    expect(statusOf(other)).toBe(401)
  })

  it('treats a mechanism answering a malformed outcome as unavailable, never as a grant', async () => {
    const broken = {
      name: 'broken',
      securityScheme: { type: 'http', scheme: 'bearer' } as const,
      authenticate: async () => ({ kind: 'authenticated', principal: { id: '', kind: 'user' } }) as never,
    }
    const evaluator = new PolicyEvaluator({ mechanisms: [broken] })
    const outcome = await evaluator.begin(sourceOf({})).evaluate(evaluator.compile(required()))
    expect(statusOf(outcome)).toBe(503)
  })

  it('never renders the mechanism reason or thrown message in the outcome code', async () => {
    const outcome = await evaluate(['throw', 'ok:alice'], [0, 0])
    expect(outcome).toMatchObject({ kind: 'rejected', code: 'authentication.unavailable' })
    expect(JSON.stringify(outcome)).not.toContain('hunter2')
  })
})

describe('principal agreement', () => {
  const evaluator = () => new PolicyEvaluator({ mechanisms: [headerMechanism('a'), headerMechanism('b')] })

  it('rejects credentials naming different principals (401), in either order', async () => {
    for (const [a, b] of [
      ['ok:alice', 'ok:bob'],
      ['ok:bob', 'ok:alice'],
      ['ok:alice', 'svc:alice'],
    ] as const) {
      const e = evaluator()
      const outcome = await e.begin(sourceOf({ 'x-a': a, 'x-b': b })).evaluate(e.compile(required('a')))
      expect(outcome).toMatchObject({ kind: 'rejected', code: 'authentication.required' })
    }
  })

  it('merges agreeing credentials: principal once, evidence of both in registry order', async () => {
    const e = evaluator()
    const outcome = await e
      .begin(sourceOf({ 'x-b': 'ok:alice', 'x-a': 'ok:alice' }))
      .evaluate(e.compile(required('a')))
    expect(outcome.kind).toBe('granted')
    if (outcome.kind !== 'granted') return
    expect(outcome.context.principal).toEqual({ id: 'alice', kind: 'user' })
    expect(outcome.context.evidence.map((item) => item.mechanism)).toEqual(['a', 'b'])
    expect(outcome.context.snapshot).toBe(AuthorizationSnapshot.empty)
  })
})
