import { describe, expect, it } from 'vitest'
import { createInteractions, InteractionsErrorCodes, stepUpReauthentication } from '../../src/index.js'
import {
  type ConsentPost,
  consentNonce,
  consentPostAllowed,
  consentToken,
} from '../../src/interactions/csrf.js'

describe('the consent form CSRF check (core checkCsrf, the form token always)', () => {
  const nonce = consentNonce()
  const token = consentToken(nonce, 'uid-1', 'alice')
  const post = (overrides: Partial<ConsentPost> = {}): ConsentPost => ({
    method: 'POST',
    secFetchSite: undefined,
    origin: undefined,
    targetOrigin: 'https://as.example',
    presented: token,
    cookieNonce: nonce,
    uid: 'uid-1',
    accountId: 'alice',
    ...overrides,
  })

  it('accepts its own token for the same interaction, account and cookie nonce', () => {
    expect(consentPostAllowed(post())).toBe(true)
  })

  it('accepts what a browser sends with the page (same-origin Fetch Metadata, its own Origin)', () => {
    expect(consentPostAllowed(post({ secFetchSite: 'same-origin', origin: 'https://as.example' }))).toBe(true)
    // Origin: null of a same-origin post (a page under `no-referrer`): Fetch Metadata decides.
    expect(consentPostAllowed(post({ secFetchSite: 'same-origin', origin: 'null' }))).toBe(true)
  })

  it('refuses cross-site and foreign origins even with a valid token', () => {
    expect(consentPostAllowed(post({ secFetchSite: 'cross-site', origin: 'https://evil.example' }))).toBe(
      false,
    )
    expect(consentPostAllowed(post({ secFetchSite: 'same-site', origin: 'https://a.as.example' }))).toBe(
      false,
    )
    expect(consentPostAllowed(post({ origin: 'https://evil.example' }))).toBe(false)
    expect(consentPostAllowed(post({ origin: 'null' }))).toBe(false)
    expect(consentPostAllowed(post({ secFetchSite: 'same-origin', origin: 'https://evil.example' }))).toBe(
      false,
    )
  })

  it('refuses a wrong token even when the headers say same-origin', () => {
    const sameOrigin = { secFetchSite: 'same-origin', origin: 'https://as.example' }
    expect(consentPostAllowed(post({ ...sameOrigin, presented: 'forged' }))).toBe(false)
    expect(consentPostAllowed(post({ ...sameOrigin, presented: undefined }))).toBe(false)
    expect(consentPostAllowed(post({ ...sameOrigin, cookieNonce: undefined }))).toBe(false)
  })

  it('refuses it for another interaction, another account, another nonce or no cookie', () => {
    expect(consentPostAllowed(post({ uid: 'uid-2' }))).toBe(false)
    expect(consentPostAllowed(post({ accountId: 'bob' }))).toBe(false)
    expect(consentPostAllowed(post({ cookieNonce: consentNonce() }))).toBe(false)
    expect(consentPostAllowed(post({ cookieNonce: undefined }))).toBe(false)
    expect(consentPostAllowed(post({ cookieNonce: 'short' }))).toBe(false)
  })

  it('refuses malformed tokens', () => {
    for (const bad of ['', '.', nonce, `${token}.`, token.slice(1), 'x'.repeat(600)]) {
      expect(consentPostAllowed(post({ presented: bad })), bad).toBe(false)
    }
  })

  it('does not confuse field boundaries (uid and account are framed, not concatenated)', () => {
    expect(consentPostAllowed(post({ presented: consentToken(nonce, 'uid-1a', 'lice') }))).toBe(false)
  })

  it('derives the token from the cookie alone: every instance verifies it, no key to share', () => {
    expect(consentToken(nonce, 'uid-1', 'alice')).toBe(token)
    expect(token).not.toContain(nonce)
  })
})

describe('createInteractions options', () => {
  const reauthentication = { url: (to: string) => to, consume: async () => undefined }
  const valid = { currentUser: async () => undefined, signInUrl: (to: string) => to, reauthentication }

  it('accepts valid options', () => {
    expect(typeof createInteractions(valid).handle).toBe('function')
  })

  it.each([
    ['no currentUser', { ...valid, currentUser: undefined }, InteractionsErrorCodes.options],
    ['no signInUrl', { ...valid, signInUrl: 'x' }, InteractionsErrorCodes.options],
    [
      'a reauthentication without consume',
      { ...valid, reauthentication: { url: () => '' } },
      InteractionsErrorCodes.options,
    ],
    [
      'a CSRF key (tokens derive from the cookie)',
      { ...valid, csrfKey: new Uint8Array(32) },
      'configuration.unknown_option',
    ],
    ['a layout that is not a function', { ...valid, layout: '<html>' }, InteractionsErrorCodes.options],
    ['a huge body limit', { ...valid, maxBodyBytes: 10_000_000 }, InteractionsErrorCodes.maxBodyBytes],
    [
      'a non-string scope description',
      { ...valid, scopeDescriptions: { a: 1 } },
      InteractionsErrorCodes.options,
    ],
    ['an unknown option', { ...valid, signInURL: () => '' }, 'configuration.unknown_option'],
  ])('refuses %s', (_name, options, code) => {
    expect(() => createInteractions(options as never)).toThrow(expect.objectContaining({ code }))
  })

  it('stepUpReauthentication refuses a missing session reader', () => {
    expect(() =>
      stepUpReauthentication({
        service: { consume: async () => ({ kind: 'rejected', reason: 'unknown' }) },
        url: () => '',
        tokenOf: () => undefined,
      } as never),
    ).toThrow(expect.objectContaining({ code: InteractionsErrorCodes.options }))
  })
})
