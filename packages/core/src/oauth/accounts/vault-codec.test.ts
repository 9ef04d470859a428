import { describe, expect, it } from 'vitest'
import type { OAuthAccountError } from './errors.js'
import { ProviderTokenSet } from './token-set.js'
import { decodeTokens, encodeTokens, retryAssociatedData, vaultAssociatedData } from './vault-codec.js'

const tokens = new ProviderTokenSet({
  accessToken: 'access-secret',
  refreshToken: 'refresh-secret',
  scopes: ['openid', 'email'],
  expiresAt: '2031-01-01T00:00:00Z',
})
const text = (value: unknown) => new TextEncoder().encode(JSON.stringify(value))
const canonical = JSON.parse(new TextDecoder().decode(encodeTokens(tokens))) as Record<string, unknown>

function rejection(bytes: Uint8Array): OAuthAccountError | undefined {
  try {
    decodeTokens(bytes)
    return undefined
  } catch (error) {
    return error as OAuthAccountError
  }
}

describe('vault plaintext codec', () => {
  it('encodes compact JSON with sorted keys and decodes it back', () => {
    expect(Object.keys(canonical)).toEqual([
      'access_token',
      'expires_at',
      'id_token',
      'refresh_token',
      'scopes',
      'token_type',
    ])
    const decoded = decodeTokens(encodeTokens(tokens))
    expect(decoded.accessToken).toBe('access-secret')
    expect(decoded.refreshToken).toBe('refresh-secret')
    expect(decoded.idToken).toBeNull()
    expect(decoded.scopes).toEqual(['email', 'openid'])
  })

  it.each([
    ['an extra member', { ...canonical, extra: 1 }],
    ['a missing member', { ...canonical, id_token: undefined }],
    ['unsorted scopes', { ...canonical, scopes: ['openid', 'email'] }],
    ['a non-bearer type', { ...canonical, token_type: 'mac' }],
    ['a timezone-less expiry', { ...canonical, expires_at: '2031-01-01T00:00:00' }],
    ['a numeric access token', { ...canonical, access_token: 5 }],
    ['an array', [canonical]],
  ])('refuses %s with one secret-free vault error', (_label, value) => {
    const error = rejection(text(value))
    expect(error?.code).toBe('oauth.vault.unavailable')
    expect(error?.errorClass).toBe('unavailable')
    expect(JSON.stringify(error)).not.toContain('secret')
    expect(error?.cause).toBeUndefined()
  })

  it('refuses duplicate members, whitespace and invalid UTF-8 that a lenient parser would accept', () => {
    const encoded = new TextDecoder().decode(encodeTokens(tokens))
    const duplicated = encoded.replace('{', '{"access_token":"other",')
    expect(rejection(new TextEncoder().encode(duplicated))?.code).toBe('oauth.vault.unavailable')
    expect(rejection(new TextEncoder().encode(` ${encoded}`))?.code).toBe('oauth.vault.unavailable')
    expect(rejection(Uint8Array.of(0xff, 0xfe))?.code).toBe('oauth.vault.unavailable')
  })

  it('binds associated data to provider, client, provider account and version, per purpose', () => {
    const base = vaultAssociatedData('google', 'client', 'pa_1', 3)
    const variants = [
      vaultAssociatedData('github', 'client', 'pa_1', 3),
      vaultAssociatedData('google', 'client-2', 'pa_1', 3),
      vaultAssociatedData('google', 'client', 'pa_2', 3),
      vaultAssociatedData('google', 'client', 'pa_1', 4),
      retryAssociatedData('google', 'client', 'pa_1', '3'),
    ]
    for (const variant of variants) expect(Buffer.from(variant).equals(Buffer.from(base))).toBe(false)
  })
})
