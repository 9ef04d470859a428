import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { createInteractions, InteractionsErrorCodes, stepUpReauthentication } from '../../src/index.js'
import { ConsentCsrf } from '../../src/interactions/csrf.js'

describe('ConsentCsrf', () => {
  const csrf = new ConsentCsrf(new Uint8Array(32).fill(7))
  const nonce = csrf.nonce()
  const token = csrf.token('uid-1', 'alice', nonce)

  it('accepts its own token for the same interaction, account and cookie nonce', () => {
    expect(csrf.verify(token, nonce, 'uid-1', 'alice')).toBe(true)
  })

  it('refuses it for another interaction, another account, another nonce or no cookie', () => {
    expect(csrf.verify(token, nonce, 'uid-2', 'alice')).toBe(false)
    expect(csrf.verify(token, nonce, 'uid-1', 'bob')).toBe(false)
    expect(csrf.verify(token, csrf.nonce(), 'uid-1', 'alice')).toBe(false)
    expect(csrf.verify(token, undefined, 'uid-1', 'alice')).toBe(false)
  })

  it('refuses a token made with another key, malformed tokens and non-strings', () => {
    const other = new ConsentCsrf(new Uint8Array(32).fill(8))
    expect(csrf.verify(other.token('uid-1', 'alice', nonce), nonce, 'uid-1', 'alice')).toBe(false)
    for (const bad of ['', '.', nonce, `${nonce}.`, `${nonce}.${token}`, 42, undefined, null]) {
      expect(csrf.verify(bad, nonce, 'uid-1', 'alice')).toBe(false)
    }
  })

  it('does not confuse field boundaries (uid and account are framed, not concatenated)', () => {
    const framed = csrf.token('uid-1a', 'lice', nonce)
    expect(csrf.verify(framed, nonce, 'uid-1', 'alice')).toBe(false)
  })

  it('never shows its key', () => {
    const shown = `${inspect(csrf)} ${String(csrf)} ${JSON.stringify(csrf)}`
    expect(shown).not.toContain('BwcH')
    expect(inspect(csrf)).toContain('[redacted]')
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
    ['a short CSRF key', { ...valid, csrfKey: new Uint8Array(8) }, InteractionsErrorCodes.csrfKey],
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
