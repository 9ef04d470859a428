import { describe, expect, it } from 'vitest'
import type { Principal } from '../../src/authentication/index.js'
import {
  AuthorizationSnapshot,
  compileGuards,
  type GuardContext,
  type GuardDecision,
  requiresRole,
  requiresStepUp,
  requiresTenant,
  type StepUpVerdict,
  type StepUpVerificationRequest,
  type StepUpVerifier,
  stepUpVerifierFor,
} from '../../src/authorization/index.js'
import { ConfigurationError } from '../../src/errors/index.js'

/** One-use tokens with real one-winner semantics across concurrent consumers (yields between check and burn). */
class OneUseVerifier implements StepUpVerifier {
  readonly requests: StepUpVerificationRequest[] = []
  readonly #live = new Map<string, { purpose: string; accountId: string }>()
  failure: 'throw' | 'unavailable' | undefined

  issue(token: string, purpose: string, accountId: string) {
    this.#live.set(token, { purpose, accountId })
  }

  async consume(request: StepUpVerificationRequest): Promise<StepUpVerdict> {
    this.requests.push(request)
    if (this.failure === 'throw') throw new Error('store down')
    if (this.failure === 'unavailable') return { kind: 'unavailable', reason: 'store', retryAfterSeconds: 9 }
    const grant = this.#live.get(request.token)
    // Any attempt with a known token burns it (even with the wrong binding).
    this.#live.delete(request.token)
    await new Promise((resolve) => setImmediate(resolve))
    if (grant === undefined) return { kind: 'rejected', reason: 'unknown' }
    if (grant.purpose !== request.purpose || grant.accountId !== request.accountId) {
      return { kind: 'rejected', reason: 'binding' }
    }
    return { kind: 'consumed' }
  }
}

const alice: Principal = { id: 'alice', kind: 'user' }
const ctx = (principal: Principal | null = alice, tenantId = 'A'): GuardContext => ({
  principal,
  snapshot: AuthorizationSnapshot.from({ roles: ['admin'], tenants: { A: ['admin'] } }),
  evidence: [{ mechanism: 'session', credentialType: 'session' }],
  params: { tenantId },
})
const denialOf = async (decision: GuardDecision | Promise<GuardDecision>) => {
  const value = await decision
  return value.granted ? 'granted' : value.denial
}

describe('requiresStepUp in the guard pipeline', () => {
  it('consumes the credential once, after the synchronous guards granted', async () => {
    const verifier = new OneUseVerifier()
    verifier.issue('tok-1', 'delete-project', 'alice')
    const pipeline = compileGuards([requiresRole('admin'), requiresStepUp('delete-project')], {
      stepUpVerifier: verifier,
    })
    expect(await denialOf(pipeline.authorize(ctx(), 'tok-1'))).toBe('granted')
    expect(verifier.requests).toEqual([
      {
        token: 'tok-1',
        purpose: 'delete-project',
        accountId: 'alice',
        principal: alice,
        evidence: ctx().evidence,
      },
    ])
    // One use only.
    expect(await denialOf(pipeline.authorize(ctx(), 'tok-1'))).toBe('step-up-required')
  })

  it('never burns the credential when a synchronous guard denies or the caller is anonymous', async () => {
    const verifier = new OneUseVerifier()
    verifier.issue('tok-1', 'p', 'alice')
    const pipeline = compileGuards([requiresTenant(), requiresStepUp('p')], { stepUpVerifier: verifier })
    expect(await denialOf(pipeline.authorize(ctx(alice, 'B'), 'tok-1'))).toBe('forbidden')
    expect(await denialOf(pipeline.authorize(ctx(null), 'tok-1'))).toBe('unauthenticated')
    const onlyStepUp = compileGuards([requiresStepUp('p')], { stepUpVerifier: verifier })
    expect(await denialOf(onlyStepUp.authorize(ctx(null), 'tok-1'))).toBe('unauthenticated')
    expect(verifier.requests).toHaveLength(0)
    expect(await denialOf(pipeline.authorize(ctx(), 'tok-1'))).toBe('granted')
  })

  it('refuses a missing or malformed token without asking the verifier', async () => {
    const verifier = new OneUseVerifier()
    const pipeline = compileGuards([requiresStepUp('p')], { stepUpVerifier: verifier })
    for (const token of [undefined, '', 'two words', 'ü', 'x'.repeat(513), 'a\nb']) {
      expect(await denialOf(pipeline.authorize(ctx(), token))).toBe('step-up-required')
    }
    expect(verifier.requests).toHaveLength(0)
  })

  it('rejects a credential bound to another purpose or account, and burns it', async () => {
    const verifier = new OneUseVerifier()
    verifier.issue('tok-p', 'other-purpose', 'alice')
    verifier.issue('tok-b', 'p', 'bob')
    const pipeline = compileGuards([requiresStepUp('p')], { stepUpVerifier: verifier })
    expect(await denialOf(pipeline.authorize(ctx(), 'tok-p'))).toBe('step-up-required')
    expect(await denialOf(pipeline.authorize(ctx(), 'tok-b'))).toBe('step-up-required')
  })

  it('maps an unavailable or throwing verifier to unavailable with Retry-After when known', async () => {
    const verifier = new OneUseVerifier()
    const pipeline = compileGuards([requiresStepUp('p')], { stepUpVerifier: verifier })
    verifier.failure = 'unavailable'
    expect(await pipeline.authorize(ctx(), 'tok')).toMatchObject({
      denial: 'unavailable',
      retryAfterSeconds: 9,
    })
    verifier.failure = 'throw'
    const thrown = await pipeline.authorize(ctx(), 'tok')
    expect(thrown).toMatchObject({ denial: 'unavailable' })
    expect(thrown).not.toHaveProperty('retryAfterSeconds')
  })

  it('has exactly one winner when the same credential is redeemed concurrently', async () => {
    const verifier = new OneUseVerifier()
    verifier.issue('tok-race', 'p', 'alice')
    const pipeline = compileGuards([requiresStepUp('p')], { stepUpVerifier: verifier })
    const results = await Promise.all(
      Array.from({ length: 16 }, () => denialOf(pipeline.authorize(ctx(), 'tok-race'))),
    )
    expect(results.filter((result) => result === 'granted')).toHaveLength(1)
    expect(results.filter((result) => result === 'step-up-required')).toHaveLength(15)
  })

  it('stays synchronous when the route has no step-up guard', () => {
    const pipeline = compileGuards([requiresRole('admin')])
    const decision = pipeline.authorize(ctx())
    expect(decision).toEqual({ granted: true })
    expect(compileGuards([]).authorize(ctx(null))).toEqual({ granted: true })
  })

  it('rejects a step-up guard without verifier, twice, or duplicated guards at startup', () => {
    const verifier = new OneUseVerifier()
    expect(() => compileGuards([requiresStepUp('p')])).toThrow(ConfigurationError)
    expect(() =>
      compileGuards([requiresStepUp('p'), requiresStepUp('q')], { stepUpVerifier: verifier }),
    ).toThrow(ConfigurationError)
    expect(() => compileGuards([requiresRole('a'), requiresRole('a')])).toThrow(ConfigurationError)
    expect(() => compileGuards(['requiresRole' as never])).toThrow(ConfigurationError)
  })
})

describe('stepUpVerifierFor', () => {
  it('passes the epoch and session binding derived from the request to the service', async () => {
    const seen: unknown[] = []
    const verifier = stepUpVerifierFor(
      {
        consume: async (request) => {
          seen.push(request)
          return { kind: 'consumed' }
        },
      },
      ({ evidence }) => ({ securityEpoch: 7, sessionBinding: `session-of-${evidence[0]?.mechanism}` }),
    )
    const pipeline = compileGuards([requiresStepUp('p')], { stepUpVerifier: verifier })
    expect(await denialOf(pipeline.authorize(ctx(), 'tok'))).toBe('granted')
    expect(seen).toEqual([
      {
        token: 'tok',
        purpose: 'p',
        accountId: 'alice',
        securityEpoch: 7,
        sessionBinding: 'session-of-session',
      },
    ])
  })

  it('refuses without consuming when the request has nothing to bind to', async () => {
    let calls = 0
    const verifier = stepUpVerifierFor(
      {
        consume: async () => {
          calls += 1
          return { kind: 'consumed' }
        },
      },
      () => undefined,
    )
    const pipeline = compileGuards([requiresStepUp('p')], { stepUpVerifier: verifier })
    expect(await denialOf(pipeline.authorize(ctx(), 'tok'))).toBe('step-up-required')
    expect(calls).toBe(0)
  })
})
