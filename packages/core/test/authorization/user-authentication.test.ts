// acrAtLeast / authenticatedWithin: pure guards over the verified acr / auth_time of the credentials.
import { describe, expect, it } from 'vitest'
import type { AuthenticationEvidence, Principal } from '../../src/authentication/index.js'
import {
  ACR_ATTRIBUTE,
  AUTH_TIME_ATTRIBUTE,
  AuthorizationSnapshot,
  acrAtLeast,
  authenticatedWithin,
  compileGuards,
  type GuardContext,
  requiresAnyOf,
  requiresStepUp,
} from '../../src/authorization/index.js'
import { ConfigurationError } from '../../src/errors/index.js'

const user: Principal = { id: 'u1', kind: 'user' }
const LEVELS = ['loa:1', 'loa:2', 'loa:3']
const NOW = 1_900_000_000_000

function context(
  attributes: NonNullable<AuthenticationEvidence['attributes']>,
  principal: Principal | null = user,
): GuardContext {
  return {
    principal,
    snapshot: AuthorizationSnapshot.empty,
    evidence: principal === null ? [] : [{ mechanism: 'bearer', credentialType: 'jwt', attributes }],
    params: {},
  }
}

describe('acrAtLeast', () => {
  const guard = acrAtLeast('loa:2', { levels: LEVELS })

  it('grants the minimum and stronger levels, refuses weaker, missing and unknown ones with a challenge', () => {
    expect(guard.check(context({ [ACR_ATTRIBUTE]: 'loa:2' })).granted).toBe(true)
    expect(guard.check(context({ [ACR_ATTRIBUTE]: 'loa:3' })).granted).toBe(true)
    for (const attributes of [
      { [ACR_ATTRIBUTE]: 'loa:1' },
      {},
      { [ACR_ATTRIBUTE]: 'LOA:2' },
      { [ACR_ATTRIBUTE]: 2 },
    ]) {
      expect(guard.check(context(attributes))).toMatchObject({
        granted: false,
        denial: 'insufficient-user-authentication',
        challenge: { acrValues: ['loa:2', 'loa:3'] },
      })
    }
  })

  it('denies anonymous callers as unauthenticated', () => {
    expect(guard.check(context({}, null))).toMatchObject({ granted: false, denial: 'unauthenticated' })
  })

  it('refuses bad configuration at startup', () => {
    expect(() => acrAtLeast('loa:9', { levels: LEVELS })).toThrow(ConfigurationError)
    expect(() => acrAtLeast('a', { levels: ['a', 'a'] })).toThrow(ConfigurationError)
    expect(() => acrAtLeast('a b', { levels: ['a b'] })).toThrow(ConfigurationError)
    expect(() => acrAtLeast('a"', { levels: ['a"'] })).toThrow(ConfigurationError)
    expect(() => acrAtLeast('a', { levels: ['a'], extra: true } as never)).toThrow(ConfigurationError)
  })

  it('keeps its challenge through combinators', () => {
    const either = requiresAnyOf(guard, acrAtLeast('loa:3', { levels: LEVELS }))
    expect(either.check(context({ [ACR_ATTRIBUTE]: 'loa:1' }))).toMatchObject({
      denial: 'insufficient-user-authentication',
      challenge: { acrValues: ['loa:2', 'loa:3'] },
    })
  })
})

describe('authenticatedWithin', () => {
  const guard = authenticatedWithin(300, { clock: () => NOW, skewSeconds: 5 })
  const seconds = NOW / 1000

  it('grants a recent auth_time within the skew, refuses old, future and missing ones with max_age', () => {
    expect(guard.check(context({ [AUTH_TIME_ATTRIBUTE]: seconds - 10 })).granted).toBe(true)
    expect(guard.check(context({ [AUTH_TIME_ATTRIBUTE]: seconds - 305 })).granted).toBe(true)
    expect(guard.check(context({ [AUTH_TIME_ATTRIBUTE]: seconds + 5 })).granted).toBe(true)
    for (const value of [seconds - 306, seconds + 6, 'recent', undefined]) {
      expect(guard.check(context(value === undefined ? {} : { [AUTH_TIME_ATTRIBUTE]: value }))).toMatchObject(
        {
          granted: false,
          denial: 'insufficient-user-authentication',
          code: 'authorization.authentication_too_old',
          challenge: { maxAge: 300 },
        },
      )
    }
  })

  it('refuses bad configuration at startup', () => {
    expect(() => authenticatedWithin(-1)).toThrow(ConfigurationError)
    expect(() => authenticatedWithin(1.5)).toThrow(ConfigurationError)
    expect(() => authenticatedWithin(60, { skewSeconds: 1000 })).toThrow(ConfigurationError)
  })
})

describe('requiresStepUp challenge hints', () => {
  it('a missing credential denial carries the configured challenge; bad hints are refused', async () => {
    const pipeline = compileGuards(
      [requiresStepUp('payout', { challenge: { maxAge: 0, acrValues: ['loa:3'] } })],
      {
        stepUpVerifier: { consume: async () => ({ kind: 'rejected', reason: 'x' }) },
      },
    )
    expect(pipeline.authorize(context({}))).toMatchObject({
      denial: 'step-up-required',
      challenge: { maxAge: 0, acrValues: ['loa:3'] },
    })
    expect(await pipeline.authorize(context({}), 'presented-token')).toMatchObject({
      denial: 'step-up-required',
      challenge: { maxAge: 0 },
    })
    expect(() => requiresStepUp('payout', { challenge: { maxAge: -1 } })).toThrow(ConfigurationError)
    expect(() => requiresStepUp('payout', { challenge: { acrValues: ['a b'] } })).toThrow(ConfigurationError)
  })
})
