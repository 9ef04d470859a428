import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { OIDCError } from './errors.js'
import type { VerifiedProviderIdentity } from './provider-types.js'
import { checkReauthentication, validateReauthenticationPolicy } from './reauthentication.js'

const START = new Date('2031-03-04T05:06:07.500Z')
const START_S = Math.floor(START.getTime() / 1000)

function identity(authTimeSeconds: number | undefined, extra: Partial<VerifiedProviderIdentity> = {}) {
  return {
    provider: 'idp',
    issuer: 'https://idp.example',
    subject: 'alice',
    amr: [],
    ...(authTimeSeconds === undefined ? {} : { authTime: new Date(authTimeSeconds * 1000) }),
    ...extra,
  } satisfies VerifiedProviderIdentity
}

function reason(run: () => void): string | undefined {
  try {
    run()
    return undefined
  } catch (error) {
    expect(error).toBeInstanceOf(OIDCError)
    return (error as OIDCError).reason
  }
}

describe('checkReauthentication', () => {
  const zero = { maxAge: 0, acrValues: [], amrValues: [] }
  const twoMinutes = { maxAge: 120, acrValues: [], amrValues: [] }
  const timing = (nowOffsetSeconds: number) => ({
    startedAt: START,
    now: new Date(START.getTime() + nowOffsetSeconds * 1000),
    skewSeconds: 10,
  })

  it('max_age 0: auth_time from the start of the reauthentication minus the skew, never before', () => {
    expect(reason(() => checkReauthentication(identity(START_S), zero, timing(5)))).toBeUndefined()
    expect(reason(() => checkReauthentication(identity(START_S - 10), zero, timing(5)))).toBeUndefined()
    expect(reason(() => checkReauthentication(identity(START_S - 11), zero, timing(5)))).toBe(
      'auth-time-stale',
    )
  })

  it('max_age 0: an auth_time in the future beyond the skew is refused', () => {
    expect(reason(() => checkReauthentication(identity(START_S + 15), zero, timing(5)))).toBeUndefined()
    expect(reason(() => checkReauthentication(identity(START_S + 16), zero, timing(5)))).toBe(
      'auth-time-future',
    )
  })

  it('max_age > 0: now - auth_time <= max_age + skew', () => {
    expect(
      reason(() => checkReauthentication(identity(START_S - 100), twoMinutes, timing(29))),
    ).toBeUndefined()
    expect(reason(() => checkReauthentication(identity(START_S - 100), twoMinutes, timing(30)))).toBe(
      'auth-time-stale',
    )
  })

  it('requires auth_time, the ACR and every AMR value', () => {
    const strict = { maxAge: 0, acrValues: ['gold'], amrValues: ['pwd', 'otp'] }
    expect(reason(() => checkReauthentication(identity(undefined), zero, timing(1)))).toBe(
      'auth-time-missing',
    )
    expect(
      reason(() => checkReauthentication(identity(START_S, { amr: ['pwd', 'otp'] }), strict, timing(1))),
    ).toBe('acr-not-satisfied')
    expect(
      reason(() =>
        checkReauthentication(identity(START_S, { acr: 'gold', amr: ['otp'] }), strict, timing(1)),
      ),
    ).toBe('amr-not-satisfied')
    expect(
      reason(() =>
        checkReauthentication(
          identity(START_S, { acr: 'gold', amr: ['otp', 'x', 'pwd'] }),
          strict,
          timing(1),
        ),
      ),
    ).toBeUndefined()
  })
})

describe('validateReauthenticationPolicy', () => {
  it('refuses max ages beyond 600 s or the step-up lifetime, bad purposes and unknown members', () => {
    expect(() => validateReauthenticationPolicy({ a: { maxAge: 601 } }, 900)).toThrow(ConfigurationError)
    expect(() => validateReauthenticationPolicy({ a: { maxAge: 400 } }, 300)).toThrow(/step-up/)
    expect(() => validateReauthenticationPolicy({ a: { maxAge: -1 } }, 300)).toThrow(ConfigurationError)
    expect(() => validateReauthenticationPolicy({ 'bad purpose': { maxAge: 0 } }, 300)).toThrow(
      ConfigurationError,
    )
    expect(() => validateReauthenticationPolicy({ a: { maxAge: 0, acr: ['x'] } }, 300)).toThrow(
      ConfigurationError,
    )
    expect(validateReauthenticationPolicy({ a: { maxAge: 0, acrValues: ['x', 'x'] } }, 300).get('a')).toEqual(
      {
        maxAge: 0,
        acrValues: ['x'],
        amrValues: [],
      },
    )
  })
})
