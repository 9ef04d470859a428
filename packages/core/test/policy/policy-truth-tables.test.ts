import { describe, expect, it } from 'vitest'
import {
  type AuthPolicy,
  allOf,
  anonymous,
  anyOf,
  atLeast,
  exclude,
  optional,
  PolicyEvaluator,
  type PolicyOutcome,
  required,
} from '../../src/policy/index.js'
import { headerMechanism, sourceOf } from './header-mechanism.js'

// Mechanisms a and b participate in required(); c does not.
function setup() {
  const mechanisms = [headerMechanism('a'), headerMechanism('b'), headerMechanism('c', { default: false })]
  return { mechanisms, evaluator: new PolicyEvaluator({ mechanisms }) }
}

const PRESENTED = ['', 'a', 'b', 'c', 'ab', 'ac', 'bc', 'abc'] as const

const status = (outcome: PolicyOutcome): number | 'anon' => {
  if (outcome.kind === 'rejected') return outcome.code === 'authentication.required' ? 401 : 503
  return outcome.context.principal === null ? 'anon' : 200
}

async function row(policy: AuthPolicy) {
  const results: (number | 'anon')[] = []
  for (const presented of PRESENTED) {
    const { mechanisms, evaluator } = setup()
    const headers = Object.fromEntries([...presented].map((name) => [`x-${name}`, 'ok:alice']))
    results.push(status(await evaluator.begin(sourceOf(headers)).evaluate(evaluator.compile(policy))))
    const expectedCalls = evaluator.compile(policy).authenticates ? 1 : 0
    expect(mechanisms.map((mechanism) => mechanism.calls)).toEqual([
      expectedCalls,
      expectedCalls,
      expectedCalls,
    ])
  }
  return results
}

describe('policy helpers over mechanisms a, b (default) and c (not default)', () => {
  //                                    none   a    b    c    ab   ac   bc   abc
  const table: [string, AuthPolicy, (number | 'anon')[]][] = [
    ['required()', required(), [401, 200, 200, 401, 200, 200, 200, 200]],
    ['required("c")', required('c'), [401, 401, 401, 200, 401, 200, 200, 200]],
    ['required("a", "c")', required('a', 'c'), [401, 200, 401, 200, 200, 200, 200, 200]],
    ['anyOf("b", "c")', anyOf('b', 'c'), [401, 401, 200, 200, 200, 200, 200, 200]],
    ['allOf("a", "b")', allOf('a', 'b'), [401, 401, 401, 401, 200, 401, 401, 200]],
    ['allOf("a", "b", "c")', allOf('a', 'b', 'c'), [401, 401, 401, 401, 401, 401, 401, 200]],
    ['atLeast(2, a, b, c)', atLeast(2, 'a', 'b', 'c'), [401, 401, 401, 401, 200, 200, 200, 200]],
    ['atLeast(1, a, c)', atLeast(1, 'a', 'c'), [401, 200, 401, 200, 200, 200, 200, 200]],
    ['atLeast(3, a, b, c)', atLeast(3, 'a', 'b', 'c'), [401, 401, 401, 401, 401, 401, 401, 200]],
    ['optional(required("a"))', optional(required('a')), ['anon', 200, 401, 401, 200, 200, 401, 200]],
    ['optional(required())', optional(required()), ['anon', 200, 200, 401, 200, 200, 200, 200]],
    ['optional(allOf("a", "c"))', optional(allOf('a', 'c')), ['anon', 401, 401, 401, 401, 200, 401, 200]],
    ['anonymous()', anonymous(), ['anon', 'anon', 'anon', 'anon', 'anon', 'anon', 'anon', 'anon']],
    ['exclude()', exclude(), ['anon', 'anon', 'anon', 'anon', 'anon', 'anon', 'anon', 'anon']],
  ]
  for (const [label, policy, expected] of table) {
    it(`${label} grants exactly the expected credential sets, extracting every slot once`, async () => {
      expect(await row(policy)).toEqual(expected)
    })
  }

  it('public and excluded routes do no credential work even when credentials are garbage', async () => {
    const { mechanisms, evaluator } = setup()
    const evaluation = evaluator.begin(sourceOf({ 'x-a': 'throw', 'x-b': 'bad', 'x-c': 'down' }))
    for (const policy of [anonymous(), exclude()]) {
      const outcome = await evaluation.evaluate(evaluator.compile(policy))
      expect(outcome).toEqual({
        kind: 'granted',
        context: { principal: null, snapshot: expect.anything(), evidence: [] },
      })
    }
    expect(mechanisms.map((mechanism) => mechanism.calls)).toEqual([0, 0, 0])
  })

  it('compiles policies to AND-groups in registry order, whatever order names were given', () => {
    const { evaluator } = setup()
    expect(evaluator.compile(required()).alternatives).toEqual([['a'], ['b']])
    expect(evaluator.compile(anyOf('c', 'a')).alternatives).toEqual([['a'], ['c']])
    expect(evaluator.compile(allOf('c', 'a')).alternatives).toEqual([['a', 'c']])
    expect(evaluator.compile(atLeast(2, 'c', 'b', 'a')).alternatives).toEqual([
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c'],
    ])
    const policy = optional(atLeast(2, 'a', 'b'))
    expect(evaluator.compile(policy)).toMatchObject({ optional: true, authenticates: true })
    expect(evaluator.compile(policy)).toBe(evaluator.compile(policy))
    expect(evaluator.compile(exclude())).toMatchObject({
      authenticates: false,
      excluded: true,
      alternatives: [],
    })
  })
})
