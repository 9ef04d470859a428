import { randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { InvalidInputError } from '../../src/errors/index.js'
import { pkceS256Challenge } from '../../src/oauth/transactions/index.js'
import { newTransaction, secret43, T0 } from './fixtures.js'

function recordError(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError)
    expect((error as InvalidInputError).code).toBe('oauth.transaction.record_invalid')
    return (error as InvalidInputError).message
  }
  throw new Error('expected the record to be refused')
}

describe('OAuthTransaction record', () => {
  it('normalizes scopes to unique sorted tokens and optional fields to null', () => {
    const tx = newTransaction({ requestedScopes: ['email', 'openid', 'email'], nonce: undefined })
    expect(tx.requestedScopes).toEqual(['email', 'openid'])
    expect(tx.nonce).toBeNull()
    expect(tx.accountId).toBeNull()
    expect(Object.isFrozen(tx)).toBe(true)
  })

  it('refuses lifetimes that are not positive or exceed ten minutes', () => {
    expect(recordError(() => newTransaction({ expiresAt: T0 }))).toMatch(/at most 10 minutes/)
    expect(recordError(() => newTransaction({ expiresAt: new Date(T0.getTime() + 600_001) }))).toMatch(
      /expiresAt/,
    )
    expect(newTransaction({ expiresAt: new Date(T0.getTime() + 600_000) }).expiresAt.getTime()).toBe(
      T0.getTime() + 600_000,
    )
    expect(recordError(() => newTransaction({ createdAt: new Date(Number.NaN) }))).toMatch(/createdAt/)
  })

  it('refuses malformed fields with a message naming the field, never its value', () => {
    const verifier = 'x'.repeat(42)
    const cases: Array<[Parameters<typeof newTransaction>[0], RegExp]> = [
      [{ stateDigest: randomBytes(31) }, /stateDigest/],
      [{ bindingDigest: 'a'.repeat(32) as unknown as Uint8Array }, /bindingDigest/],
      [{ provider: ' ' }, /provider/],
      [{ provider: 'a\nb' }, /provider/],
      [{ operation: 'delete' as 'login' }, /operation/],
      [{ requestedScopes: ['has space'] }, /requestedScopes/],
      [{ requestedScopes: ['a"b\\'] }, /requestedScopes/],
      [{ requestedScopes: Array.from({ length: 65 }, (_, i) => `s${i}`) }, /requestedScopes/],
      [{ pkceVerifier: verifier }, /pkceVerifier/],
      [{ pkceVerifier: `${secret43()}!` }, /pkceVerifier/],
      [{ nonce: 'short' }, /nonce/],
      [{ securityEpoch: -1 }, /securityEpoch/],
      [{ securityEpoch: 1.5 }, /securityEpoch/],
      [
        { maxAuthenticationAge: 601, operation: 'reauthenticate', accountId: 'a', stepUpPurpose: 'p' },
        /maxAuth/,
      ],
      [{ operation: 'link' }, /accountId is required for link/],
      [{ operation: 'reauthenticate', accountId: 'a' }, /stepUpPurpose is required/],
      [{ stepUpPurpose: 'delete-account' }, /only for reauthenticate/],
      [{ sessionBindingDigest: randomBytes(16) }, /sessionBindingDigest/],
    ]
    for (const [overrides, message] of cases) {
      const text = recordError(() => newTransaction(overrides))
      expect(text).toMatch(message)
      expect(text).not.toContain(verifier)
    }
  })

  it('copies digests so later changes to the caller buffers do not move the record', () => {
    const stateDigest = randomBytes(32)
    const tx = newTransaction({ stateDigest })
    const before = Buffer.from(tx.stateDigest).toString('hex')
    stateDigest.fill(0)
    expect(Buffer.from(tx.stateDigest).toString('hex')).toBe(before)
  })

  it('redacts the verifier and nonce from inspect and JSON', () => {
    const tx = newTransaction()
    for (const form of [inspect(tx), JSON.stringify(tx), inspect({ wrapped: tx }, { depth: 4 })]) {
      expect(form).not.toContain(tx.pkceVerifier)
      expect(form).not.toContain(tx.nonce ?? 'never')
      expect(form).toContain('[redacted]')
      expect(form).toContain('acme')
    }
  })
})

describe('pkceS256Challenge', () => {
  it('matches the RFC 7636 appendix B vector', () => {
    expect(pkceS256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    )
  })

  it('accepts 43 to 128 unreserved characters and nothing else', () => {
    expect(pkceS256Challenge('a'.repeat(43))).toHaveLength(43)
    expect(pkceS256Challenge('~._-'.repeat(32))).toHaveLength(43)
    for (const verifier of [
      'a'.repeat(42),
      'a'.repeat(129),
      `${'a'.repeat(42)}+`,
      `${'a'.repeat(42)}é`,
      42,
    ]) {
      expect(() => pkceS256Challenge(verifier as string)).toThrowError(
        expect.objectContaining({ code: 'oauth.pkce.verifier_invalid' }),
      )
    }
  })
})
