import { describe, expect, it } from 'vitest'
import { linearIn } from './support.js'

describe('the linear-time bound of the fuzz suite', () => {
  const input = 'a'.repeat(4_000)

  it('passes linear work and returns its result', () => {
    expect(linearIn(input, () => input.split('').reverse().join('').length)).toBe(4_000)
  })

  it('fails quadratic work on the same input', () => {
    const quadratic = () => {
      let pairs = 0
      for (let i = 0; i < input.length; i++) {
        for (let j = i + 1; j < input.length; j++) if (input.charCodeAt(i) === input.charCodeAt(j)) pairs++
      }
      return pairs
    }
    // without the slack that keeps megabyte runs clear of garbage-collector pauses
    expect(() => linearIn(input, quadratic, { slackMs: 0 })).toThrow(/CPU, over 200x a linear scan/)
  })
})
