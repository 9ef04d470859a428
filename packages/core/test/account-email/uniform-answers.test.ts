import { performance } from 'node:perf_hooks'
import { describe, expect, it } from 'vitest'
import { accountEmailWorld, PASSWORD } from '../support/account-email-world.js'

// Known and unknown addresses must cost the same at sign-up and at a reset request: the same store
// calls (counted) and one password hash at sign-up, hence the same time. The time is compared as two
// distributions of interleaved samples (medians within noise); the budget of 5% is checked by the
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

async function countingWorld(latencyMs = 0) {
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
    },
  })
  return { base, world, calls }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
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

  it('sign-up and reset request take the same time for known and unknown addresses (stores 2 ms away, interleaved samples, medians within noise)', async () => {
    const { base, world } = await countingWorld(2)
    await base.verifiedAccount('taken@example.com')
    const samples = {
      signUpNew: [] as number[],
      signUpTaken: [] as number[],
      resetKnown: [] as number[],
      resetUnknown: [] as number[],
    }
    const time = async (work: () => Promise<unknown>) => {
      const start = performance.now()
      await work()
      return performance.now() - start
    }
    for (let round = 0; round < 40; round += 1) {
      const pair = [
        async () =>
          samples.signUpNew.push(
            await time(() => world.email.signUp({ email: `n${round}@example.com`, password: PASSWORD })),
          ),
        async () =>
          samples.signUpTaken.push(
            await time(() => world.email.signUp({ email: 'taken@example.com', password: PASSWORD })),
          ),
        async () =>
          samples.resetKnown.push(
            await time(() => world.email.requestPasswordReset({ email: 'taken@example.com' })),
          ),
        async () =>
          samples.resetUnknown.push(
            await time(() => world.email.requestPasswordReset({ email: `u${round}@example.com` })),
          ),
      ]
      // alternate the order so drift and warm-up hit both sides alike
      for (const run of round % 2 === 0 ? pair : [...pair].reverse()) await run()
    }
    const signUp = median(samples.signUpTaken) / median(samples.signUpNew)
    const reset = median(samples.resetUnknown) / median(samples.resetKnown)
    expect(signUp, `sign-up taken/new median ratio ${signUp.toFixed(3)}`).toBeGreaterThan(0.75)
    expect(signUp).toBeLessThan(1.33)
    expect(reset, `reset unknown/known median ratio ${reset.toFixed(3)}`).toBeGreaterThan(0.75)
    expect(reset).toBeLessThan(1.33)
  })
})
