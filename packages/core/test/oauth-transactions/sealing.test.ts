import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  OAuthTransaction,
  openOAuthTransaction,
  type SealedOAuthTransaction,
  sealOAuthTransaction,
} from '../../src/oauth/transactions/index.js'
import { ProtectedEnvelopeError } from '../../src/protection/index.js'
import { newProtector, newTransaction, T0 } from './fixtures.js'

describe('sealOAuthTransaction / openOAuthTransaction', () => {
  it('round-trips every field and keeps the secrets out of the sealed form', async () => {
    const protector = newProtector()
    const tx = newTransaction({
      operation: 'reauthenticate',
      accountId: 'acct-1',
      stepUpPurpose: 'delete-account',
      maxAuthenticationAge: 0,
      securityEpoch: 3,
      providerAccountId: 'sub-9',
      expectedIssuer: 'https://idp.example',
      sessionBindingDigest: randomBytes(32),
    })
    const sealed = await sealOAuthTransaction(protector, tx)
    const dump = JSON.stringify(sealed, (_key, value) =>
      value instanceof Uint8Array ? Buffer.from(value).toString('base64url') : value,
    )
    expect(dump).not.toContain(tx.pkceVerifier)
    expect(dump).not.toContain(tx.nonce ?? 'never')
    const opened = await openOAuthTransaction(protector, sealed)
    expect(opened).toBeInstanceOf(OAuthTransaction)
    expect({ ...opened }).toEqual({ ...tx })
  })

  it('fails to open when any stored field was edited', async () => {
    const protector = newProtector()
    const tx = newTransaction({ operation: 'link', accountId: 'acct-1' })
    const sealed = await sealOAuthTransaction(protector, tx)
    const edits: Array<Partial<SealedOAuthTransaction>> = [
      { stateDigest: randomBytes(32) },
      { bindingDigest: randomBytes(32) },
      { provider: 'other' },
      { operation: 'login' },
      { redirectUri: 'https://evil.example/cb' },
      { returnTo: '/settings' },
      { requestedScopes: ['openid'] },
      { accountId: 'acct-2' },
      { securityEpoch: 1 },
      { sessionBindingDigest: randomBytes(32) },
      { expiresAt: new Date(T0.getTime() + 599_000) },
      { createdAt: new Date(T0.getTime() + 1) },
    ]
    for (const edit of edits) {
      await expect(openOAuthTransaction(protector, { ...sealed, ...edit })).rejects.toBeInstanceOf(
        ProtectedEnvelopeError,
      )
    }
  })

  it('fails when the verifier and nonce envelopes are swapped or moved to another transaction', async () => {
    const protector = newProtector()
    const a = await sealOAuthTransaction(protector, newTransaction())
    const b = await sealOAuthTransaction(protector, newTransaction())
    if (a.nonce === null || b.nonce === null) throw new Error('fixture has a nonce')
    await expect(
      openOAuthTransaction(protector, { ...a, pkceVerifier: a.nonce, nonce: a.pkceVerifier }),
    ).rejects.toThrow(ProtectedEnvelopeError)
    await expect(openOAuthTransaction(protector, { ...a, pkceVerifier: b.pkceVerifier })).rejects.toThrow(
      ProtectedEnvelopeError,
    )
    await expect(openOAuthTransaction(protector, { ...a, nonce: b.nonce })).rejects.toThrow(
      ProtectedEnvelopeError,
    )
    await expect(openOAuthTransaction(newProtector(), a)).rejects.toThrow(ProtectedEnvelopeError)
  })
})
