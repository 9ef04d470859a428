import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../../src/errors/index.js'
import {
  allOf,
  anonymous,
  anyOf,
  atLeast,
  MechanismRegistry,
  optional,
  PolicyEvaluator,
  required,
} from '../../src/policy/index.js'
import { headerMechanism } from './header-mechanism.js'

const code = (fn: () => unknown) => {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError)
    return (error as ConfigurationError).code
  }
  throw new Error('expected a ConfigurationError')
}

describe('policy configuration is checked at startup', () => {
  it('rejects malformed helper arguments', () => {
    expect(code(() => anyOf())).toBe('policy.invalid')
    expect(code(() => allOf())).toBe('policy.invalid')
    expect(code(() => required(' a'))).toBe('policy.invalid')
    expect(code(() => required(''))).toBe('policy.invalid')
    expect(code(() => anyOf('a', 'a'))).toBe('policy.invalid')
    expect(code(() => atLeast(0, 'a', 'b'))).toBe('policy.invalid')
    expect(code(() => atLeast(3, 'a', 'b'))).toBe('policy.invalid')
    expect(code(() => atLeast(1.5, 'a', 'b'))).toBe('policy.invalid')
    expect(code(() => optional(anonymous() as never))).toBe('policy.invalid')
    expect(code(() => optional(optional(required()) as never))).toBe('policy.invalid')
  })

  it('fails on unknown mechanism names, duplicates, and required() without defaults', () => {
    const evaluator = new PolicyEvaluator({ mechanisms: [headerMechanism('a'), headerMechanism('b')] })
    expect(code(() => evaluator.compile(required('nope')))).toBe('policy.unknown_mechanism')
    expect(code(() => evaluator.compile(optional(allOf('a', 'nope'))))).toBe('policy.unknown_mechanism')
    expect(code(() => new MechanismRegistry([headerMechanism('a'), headerMechanism('a')]))).toBe(
      'policy.duplicate_mechanism',
    )
    expect(code(() => new MechanismRegistry([headerMechanism(' a')]))).toBe('policy.invalid_mechanism')
    const noDefaults = new MechanismRegistry([headerMechanism('a', { default: false })])
    expect(code(() => noDefaults.compile(required()))).toBe('policy.no_default_mechanism')
    expect(code(() => new MechanismRegistry([]).compile(required()))).toBe('policy.no_default_mechanism')
  })

  it('rejects hand-made policy objects that did not come from a helper', () => {
    const registry = new MechanismRegistry([headerMechanism('a')])
    for (const forged of [
      { kind: 'required', names: 'a' },
      { kind: 'atLeast', k: 5, names: ['a'] },
      { kind: 'optional', policy: { kind: 'anonymous' } },
      { kind: 'everyone' },
    ]) {
      expect(code(() => registry.compile(forged as never))).toBe('policy.invalid')
    }
  })

  it('bounds the number of alternatives a policy may expand to', () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g']
    const registry = new MechanismRegistry(names.map((name) => headerMechanism(name)))
    expect(registry.compile(atLeast(2, ...names)).alternatives).toHaveLength(21)
    expect(code(() => registry.compile(atLeast(3, ...names)))).toBe('policy.too_many_alternatives')
  })
})
