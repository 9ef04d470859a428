import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { AESGCMOAuthTransactionProtector } from '../../protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../../protection/key.js'
import type { OAuthTransactionProtector, ProtectedEnvelope } from '../../protection/protector.js'
import { inspectMemoryOAuthAccountStore, MemoryOAuthAccountStore } from './memory-store.js'
import { reencryptOAuthVault } from './reencryption.js'
import type { OAuthVaultReencryption, StaleVaultEnvelope } from './reencryption-port.js'
import { ProviderTokenSet } from './token-set.js'

const NOW = new Date('2031-03-04T05:06:07Z')
const oldKey = new OAuthTransactionProtectorKey('2031-01', randomBytes(32))
const newKey = new OAuthTransactionProtectorKey('2031-03', randomBytes(32))

/** The protector the stores hold; tests move it through the rotation. */
class Ring implements OAuthTransactionProtector {
  current = new AESGCMOAuthTransactionProtector({ activeKey: oldKey })
  get activeKeyVersion() {
    return this.current.activeKeyVersion
  }
  protect(plaintext: Uint8Array, aad: Uint8Array) {
    return this.current.protect(plaintext, aad)
  }
  unprotect(envelope: ProtectedEnvelope, aad: Uint8Array) {
    return this.current.unprotect(envelope, aad)
  }
  rotate() {
    this.current = new AESGCMOAuthTransactionProtector({ activeKey: newKey, retainedKeys: [oldKey] })
  }
}

async function storeWithTokens(ring: Ring, provider: string) {
  const store = new MemoryOAuthAccountStore({ provider, clientId: `${provider}-client`, protector: ring })
  const tokens = new ProviderTokenSet({
    accessToken: `access-${provider}`,
    scopes: ['openid'],
    expiresAt: NOW,
  })
  const { link } = await store.login({
    identity: { provider, issuer: 'https://idp.example/', subject: 'someone' },
    grant: { scopes: ['openid'] },
    tokens,
    provisionUnknown: true,
    now: NOW,
  })
  return { store, providerAccountId: link.providerAccountId }
}

describe('reencryptOAuthVault', () => {
  it('re-seals the envelopes of every registration it is given, reporting progress after each batch', async () => {
    const ring = new Ring()
    const google = await storeWithTokens(ring, 'google')
    const github = await storeWithTokens(ring, 'github')
    ring.rotate()
    const progress: number[] = []
    const report = await reencryptOAuthVault({
      stores: [google.store, github.store],
      protector: ring,
      batchSize: 1,
      onProgress: ({ scanned }) => progress.push(scanned),
    })
    expect(report).toEqual({ scanned: 2, resealed: 2, raced: 0, unreadable: [] })
    expect(progress.at(-1)).toBe(2)
    for (const { store, providerAccountId } of [google, github]) {
      const envelope = await inspectMemoryOAuthAccountStore(store).readVaultEnvelope(providerAccountId)
      expect(envelope?.keyVersion).toBe('2031-03')
    }
  })

  it('names the registration of an envelope no key opens', async () => {
    const ring = new Ring()
    const { store, providerAccountId } = await storeWithTokens(ring, 'okta')
    ring.current = new AESGCMOAuthTransactionProtector({ activeKey: newKey })
    const report = await reencryptOAuthVault({ stores: [store], protector: ring })
    expect(report.unreadable).toEqual([
      {
        provider: 'okta',
        clientId: 'okta-client',
        kind: 'vault-tokens',
        providerAccountId,
        version: 1,
        keyVersion: '2031-01',
      },
    ])
  })

  it('ends with a typed error when the protector cannot seal, rewriting nothing and blaming no record', async () => {
    const ring = new Ring()
    const { store, providerAccountId } = await storeWithTokens(ring, 'auth0')
    ring.rotate()
    const before = await inspectMemoryOAuthAccountStore(store).readVaultEnvelope(providerAccountId)
    const failing: OAuthTransactionProtector = {
      activeKeyVersion: ring.activeKeyVersion,
      unprotect: (envelope, aad) => ring.unprotect(envelope, aad),
      protect: async () => {
        throw new Error('hsm unreachable')
      },
    }
    await expect(reencryptOAuthVault({ stores: [store], protector: failing })).rejects.toThrow(
      'hsm unreachable',
    )
    const after = await inspectMemoryOAuthAccountStore(store).readVaultEnvelope(providerAccountId)
    expect(after?.keyVersion).toBe(before?.keyVersion)
  })

  it('stops with a configuration error when a store lists the envelope it was asked to continue after', async () => {
    const stuck: StaleVaultEnvelope = {
      kind: 'revocation-retry',
      retryId: 'retry-1',
      providerAccountId: 'pa-1',
      envelope: null,
    }
    let calls = 0
    const store: OAuthVaultReencryption = {
      provider: 'broken',
      clientId: 'client',
      listStaleEnvelopes: async () => {
        calls += 1
        return [stuck]
      },
      rewriteEnvelope: async () => false,
    }
    await expect(
      reencryptOAuthVault({ stores: [store], protector: new Ring(), batchSize: 1 }),
    ).rejects.toMatchObject({ code: 'oauth.account.reencryption_store', errorClass: 'configuration' })
    expect(calls).toBe(2)
  })
})
