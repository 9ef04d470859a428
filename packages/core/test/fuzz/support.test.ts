import { describe, expect, it } from 'vitest'
import { linearIn } from './support.js'

describe('the linear-time bound of the fuzz suite', () => {
  const input = 'a'.repeat(4_000)

  it('passes linear work and returns its result', () => {
    expect(linearIn(input, () => input.split('').reverse().join('').length)).toBe(4_000)
  })

  // The decision on a scripted clock: a real quadratic run is only reliably slow enough to fail at sizes
  // that cost seconds, because the process clock also counts V8's background threads.
  it('fails work over the bound on each of three tries, naming the figures', () => {
    let now = 0
    let tries = 0
    const slow = () => {
      tries++
      now += 50
      return 'done'
    }
    expect(() => linearIn(input, slow, { clock: () => now })).toThrow(
      'took 50.0 ms of CPU, over 200x a linear scan of the input (0.00 ms) + 20 ms',
    )
    expect(tries).toBe(3)
  })

  it('passes work that comes in under the bound on a later try, with its result', () => {
    let now = 0
    const costs = [50, 50, 5]
    const settling = () => {
      now += costs.shift() ?? 0
      return costs.length
    }
    expect(linearIn(input, settling, { clock: () => now })).toBe(0)
    expect(costs).toEqual([])
  })
})
