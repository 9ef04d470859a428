import { performance } from 'node:perf_hooks'
import { describe, expect, it } from 'vitest'
import type { AccountEmailOptions } from '../../src/account-email/account-email-options.js'
import { accountEmailWorld, PASSWORD } from '../support/account-email-world.js'

// Known and unknown addresses must cost the same at sign-up and at a reset request: the same store
// calls (counted) and one password hash at sign-up, hence the same time. The time is compared as paired
// samples against yardsticks of the same run (see comparePaired); the budget of 5% is checked by the
// benchmark in the same run as its baseline, not here.

/** Counts the calls of every method of `target`, by name; each call waits `latencyMs` first (a database round trip). */
function counted<T extends object>(target: T, calls: string[], latencyMs = 0): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver)
      if (typeof value !== 'function') return value
      return async (...args: unknown[]) => {
        calls.push(String(property))
        if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs))
        return (value as (...a: unknown[]) => unknown).apply(object, args)
      }
    },
  })
}

async function countingWorld(latencyMs = 0, email: Partial<AccountEmailOptions> = {}) {
  const calls: string[] = []
  const base = await accountEmailWorld()
  const world = await accountEmailWorld({
    email: {
      accounts: counted(base.accounts, calls, latencyMs),
      codes: counted(base.codes, calls, latencyMs),
      outbox: counted(base.outbox, calls, latencyMs),
      rateLimits: counted(base.rateLimits, calls, latencyMs),
      local: base.local,
      limits: {
        perAddress: { limit: 100_000, windowSeconds: 60 },
        perClient: { limit: 100_000, windowSeconds: 60 },
      },
      ...email,
    },
  })
  return { base, world, calls }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

/** The mean of the middle half (robust like the median, and smooth where timer delays come in steps). */
const middleMean = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.slice(Math.floor(sorted.length / 4), Math.ceil((sorted.length * 3) / 4))
  return middle.reduce((sum, value) => sum + value, 0) / middle.length
}

describe('uniform answers', () => {
  it('sign-up: a new and a taken address make the same store calls and one password hash', async () => {
    const { base, world, calls } = await countingWorld()
    const email = world.email
    // base.email shares the stores: the verified owner of taken@example.com
    await base.verifiedAccount('taken@example.com')
    const hashes = base.hasher.hashes
    calls.length = 0
    await email.signUp({ email: 'new@example.com', password: PASSWORD })
    const fresh = [...calls]
    const afterFresh = base.hasher.hashes
    calls.length = 0
    await email.signUp({ email: 'taken@example.com', password: PASSWORD })
    const taken = [...calls]
    expect(taken.length).toBe(fresh.length)
    expect(afterFresh - hashes).toBe(1)
    expect(base.hasher.hashes - afterFresh).toBe(1)
  })

  it('reset request: a known and an unknown address make the same store calls', async () => {
    const { base, world, calls } = await countingWorld()
    await base.verifiedAccount('known@example.com')
    calls.length = 0
    await world.email.requestPasswordReset({ email: 'known@example.com' })
    const known = [...calls]
    calls.length = 0
    await world.email.requestPasswordReset({ email: 'unknown@example.com' })
    expect([...calls]).toEqual(known)
  })

  it('sign-in code request: a known and an unknown address make the same store calls', async () => {
    const { base, world, calls } = await countingWorld(0, { signInCode: { enabled: true } })
    await base.verifiedAccount('known@example.com')
    calls.length = 0
    await world.email.requestSignInCode({ email: 'known@example.com' })
    const known = [...calls]
    calls.length = 0
    await world.email.requestSignInCode({ email: 'unknown@example.com' })
    expect([...calls]).toEqual(known)
  })

  it('sign-up, reset request and sign-in code request take the same time for known and unknown addresses (stores 5 ms away, paired samples, the typical difference under half a round trip or a hash)', async () => {
    const { base, world } = await countingWorld(5, { signInCode: { enabled: true } })
    await base.verifiedAccount('taken@example.com')
    let fresh = 0
    const next = () => {
      fresh += 1
      return `n${fresh}@example.com`
    }
    const flows: Record<string, Pair> = {
      'sign-up new − taken': {
        known: () => world.email.signUp({ email: 'taken@example.com', password: PASSWORD }),
        unknown: () => world.email.signUp({ email: next(), password: PASSWORD }),
      },
      'reset unknown − known': {
        known: () => world.email.requestPasswordReset({ email: 'taken@example.com' }),
        unknown: () => world.email.requestPasswordReset({ email: next() }),
      },
      'sign-in code unknown − known': {
        known: () => world.email.requestSignInCode({ email: 'taken@example.com' }),
        unknown: () => world.email.requestSignInCode({ email: next() }),
      },
    }
    // The yardsticks, measured in the same rounds: one more store round trip, one more password hash.
    const ping = counted({ ping: async () => undefined }, [], 5)
    const yardsticks: Record<string, () => Promise<unknown>> = {
      'round trip': () => ping.ping(),
      hash: () => base.hasher.hash(PASSWORD),
    }
    const report = await comparePaired(flows, yardsticks, { rounds: 60, attempts: 4 })
    expect(report.passed, report.figures).toBe(true)
  }, 180_000)
})

type Pair = { readonly known: () => Promise<unknown>; readonly unknown: () => Promise<unknown> }

const time = async (work: () => Promise<unknown>) => {
  const start = performance.now()
  await work()
  return performance.now() - start
}

/**
 * Times each flow's two paths back to back in every round (the order alternating, so drift and warm-up
 * hit both alike) and keeps the paired difference: load that slows a round slows both of its samples, so
 * the middle of the differences (the mean of their middle half) stays near the true difference where the
 * medians of two separate distributions drift apart. A flow passes when that is under half the smaller
 * yardstick (a store round trip, a hash) measured in the same rounds, whatever the load: one path doing
 * one more round trip or hash fails. When it is not, `rounds` more are added to the samples, up to
 * `attempts` times: noise shrinks as the samples grow, a real difference does not. Every attempt's
 * figures are returned and printed.
 */
async function comparePaired(
  flows: Record<string, Pair>,
  yardsticks: Record<string, () => Promise<unknown>>,
  options: { readonly rounds: number; readonly attempts: number },
): Promise<{ readonly passed: boolean; readonly figures: string }> {
  const lines: string[] = []
  const differences = new Map<string, number[]>(Object.keys(flows).map((name) => [name, []]))
  const costs = new Map<string, number[]>(Object.keys(yardsticks).map((name) => [name, []]))
  for (let attempt = 1; attempt <= options.attempts; attempt += 1) {
    for (let round = 0; round < options.rounds; round += 1) {
      for (const [name, pair] of Object.entries(flows)) {
        let known: number
        let unknown: number
        if (round % 2 === 0) {
          known = await time(pair.known)
          unknown = await time(pair.unknown)
        } else {
          unknown = await time(pair.unknown)
          known = await time(pair.known)
        }
        differences.get(name)?.push(unknown - known)
      }
      for (const [name, work] of Object.entries(yardsticks)) costs.get(name)?.push(await time(work))
    }
    const yardstick = Math.min(...[...costs.values()].map(median))
    const limit = yardstick / 2
    const results = [...differences].map(([name, values]) => ({ name, difference: middleMean(values) }))
    const passed = results.every((result) => Math.abs(result.difference) < limit)
    const costFigures = [...costs].map(([name, values]) => `${name} ${median(values).toFixed(2)} ms`)
    const flowFigures = results.map((result) => `${result.name} ${result.difference.toFixed(2)} ms`)
    lines.push(
      `attempt ${attempt} (${attempt * options.rounds} rounds): ${passed ? 'passed' : 'failed'}; limit ${limit.toFixed(2)} ms (${costFigures.join(', ')}); typical differences: ${flowFigures.join(', ')}`,
    )
    if (passed) {
      console.info(lines.join('\n'))
      return { passed, figures: lines.join('\n') }
    }
  }
  console.info(lines.join('\n'))
  return { passed: false, figures: lines.join('\n') }
}
