import { describe, expect, it } from 'vitest'
import {
  assertSuite,
  type ConformanceSuite,
  ConformanceViolation,
  conformanceCase,
  runSuite,
} from './suite.js'

interface Counter {
  value: number
  increment(): number
}

function counterSuite(factory: () => Counter, disposed: Counter[] = []): ConformanceSuite<Counter> {
  return {
    name: 'counter',
    createContext: factory,
    disposeContext: (counter) => {
      disposed.push(counter)
    },
    cases: [
      conformanceCase('counter.starts-at-zero', 'a fresh counter starts at zero', (counter, check) => {
        check(counter.value === 0, `got ${counter.value}`)
      }),
      conformanceCase('counter.increments', 'increment adds exactly one', (counter, check) => {
        check(counter.increment() === 1)
        check(counter.increment() === 2)
      }),
    ],
  }
}

function goodCounter(): Counter {
  return {
    value: 0,
    increment() {
      this.value += 1
      return this.value
    },
  }
}

describe('conformance suites', () => {
  it('pass a correct implementation, each case with a fresh, disposed context', async () => {
    const disposed: Counter[] = []
    const results = await runSuite(counterSuite(goodCounter, disposed))
    expect(results.map((result) => result.passed)).toEqual([true, true])
    expect(disposed).toHaveLength(2)
    expect(disposed[0]).not.toBe(disposed[1])
    await expect(assertSuite(counterSuite(goodCounter))).resolves.toBeUndefined()
  })

  it('name the violated invariant when an implementation is broken', async () => {
    const broken = (): Counter => ({
      value: 0,
      increment() {
        this.value += 2
        return this.value
      },
    })
    const results = await runSuite(counterSuite(broken))
    expect(results[0]?.passed).toBe(true)
    expect(results[1]?.passed).toBe(false)
    const error = results[1]?.error
    expect(error).toBeInstanceOf(ConformanceViolation)
    expect((error as ConformanceViolation).caseId).toBe('counter.increments')
    expect((error as Error).message).toBe('[counter.increments] increment adds exactly one')
    await expect(assertSuite(counterSuite(broken))).rejects.toThrow(
      /1 invariant\(s\) violated: counter.increments/,
    )
  })

  it('report a factory that throws as a failed case, not a crash', async () => {
    const results = await runSuite(
      counterSuite(() => {
        throw new Error('cannot build')
      }),
    )
    expect(results.every((result) => !result.passed)).toBe(true)
  })
})
