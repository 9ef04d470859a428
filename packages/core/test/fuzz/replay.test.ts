import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { replaySettings } from './replay.js'

describe('replaying a fast-check run from FC_SEED and FC_PATH', () => {
  it('is wired by the setup file: the global configuration holds exactly what the environment says', () => {
    // without the variables (as in CI) no seed is fixed, so every run explores new cases
    const settings = replaySettings(process.env)
    const global = fc.readConfigureGlobal()
    expect(global.seed).toBe(settings?.seed)
    expect((global as { readonly path?: string }).path).toBe(settings?.path)
  })

  it('leaves the seed random when neither is set', () => {
    expect(replaySettings({})).toBeUndefined()
    expect(replaySettings({ FC_SEED: '', FC_PATH: ' ' })).toBeUndefined()
  })

  it('reads the seed and the path as fast-check prints them', () => {
    expect(replaySettings({ FC_SEED: '-1339085825' })).toEqual({ seed: -1339085825 })
    expect(replaySettings({ FC_SEED: ' 2147483647 ', FC_PATH: '113:64:1' })).toEqual({
      seed: 2147483647,
      path: '113:64:1',
      endOnFailure: true,
    })
    expect(replaySettings({ FC_SEED: '0', FC_PATH: '7' })).toEqual({ seed: 0, path: '7', endOnFailure: true })
  })

  it('refuses a malformed seed or path, and a path without a seed, naming the variable', () => {
    for (const seed of ['abc', '1.5', '0x10', '2147483648', '-2147483649', '12345678901', '1e3']) {
      expect(() => replaySettings({ FC_SEED: seed })).toThrow(/^FC_SEED must be/)
    }
    for (const path of ['113:', ':1', '1::2', 'a:b', '1 2', '-1']) {
      expect(() => replaySettings({ FC_SEED: '1', FC_PATH: path })).toThrow(/^FC_PATH must be/)
    }
    expect(() => replaySettings({ FC_PATH: '1:2' })).toThrow(/^FC_PATH is set without FC_SEED/)
  })

  it('replays: the same seed draws the same values, and a printed seed and path give the counterexample back', () => {
    // independent of a replay configured for the whole run
    const global = fc.readConfigureGlobal()
    fc.resetConfigureGlobal()
    try {
      const draw = (seed: number) => fc.sample(fc.string({ maxLength: 20 }), { seed, numRuns: 20 })
      expect(draw(-1339085825)).toEqual(draw(-1339085825))
      const property = fc.property(fc.nat(), (n) => n < 1000)
      const failure = fc.check(property, { seed: 42 })
      expect(failure.failed).toBe(true)
      if (!failure.failed) return
      const settings = replaySettings({
        FC_SEED: String(failure.seed),
        FC_PATH: failure.counterexamplePath ?? '',
      })
      const replay = fc.check(property, settings)
      expect(replay.failed).toBe(true)
      expect(replay.counterexample).toEqual(failure.counterexample)
      expect(replay.numRuns).toBe(1)
    } finally {
      fc.configureGlobal(global)
    }
  })
})
