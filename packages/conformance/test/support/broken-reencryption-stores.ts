import { accounts } from '@portcullis/core/oauth'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import type { OAuthVaultReencryptionFactory } from '../../src/oauth/index.js'

type Listing = accounts.ListStaleEnvelopesRequest
type Rewrite = accounts.RewriteEnvelopeRequest

/** A memory store with its re-encryption operations swapped for flawed ones. */
function flawed(
  make: (
    store: accounts.MemoryOAuthAccountStore,
    inspector: accounts.OAuthVaultInspector,
  ) => Partial<accounts.OAuthVaultReencryption>,
): OAuthVaultReencryptionFactory {
  return (protector: OAuthTransactionProtector) => {
    const store = new accounts.MemoryOAuthAccountStore({ provider: 'example-idp', clientId: 'c', protector })
    const inspector = accounts.inspectMemoryOAuthAccountStore(store)
    Object.assign(store, make(store, inspector))
    return { store, inspector }
  }
}

export interface BrokenReencryptionStore {
  readonly name: string
  readonly factory: OAuthVaultReencryptionFactory
  /** The cases that must fail. */
  readonly caught: readonly string[]
}

const id = (name: string) => `oauth-vault-reencryption.${name}`

const memoryList = (store: accounts.MemoryOAuthAccountStore, request: Listing) =>
  accounts.MemoryOAuthAccountStore.prototype.listStaleEnvelopes.call(store, request)
const memoryRewrite = (store: accounts.MemoryOAuthAccountStore, request: Rewrite) =>
  accounts.MemoryOAuthAccountStore.prototype.rewriteEnvelope.call(store, request)

// Each flawed store checks its input exactly as the memory store does, except the one about input.
export const brokenReencryptionStores: readonly BrokenReencryptionStore[] = [
  {
    name: 'a last-writer-wins rewrite (no compare-and-swap)',
    factory: flawed((store, inspector) => ({
      async rewriteEnvelope(request: Rewrite) {
        const { stale, envelope } = accounts.requireEnvelopeRewrite(request)
        if (stale.kind !== 'vault-tokens') return memoryRewrite(store, request)
        return inspector.writeVaultEnvelope(stale.providerAccountId, envelope)
      },
    })),
    caught: [id('refresh-before-rewrite'), id('exact-envelope'), id('concurrent-refresh')],
  },
  {
    name: 'a rewrite through the refresh path (the token version moves)',
    factory: flawed((store) => ({
      async rewriteEnvelope(request: Rewrite) {
        const { stale } = accounts.requireEnvelopeRewrite(request)
        if (stale.kind !== 'vault-tokens') return memoryRewrite(store, request)
        const current = await store.getTokens(stale.providerAccountId)
        if (current?.reference.version !== stale.version) return false
        const swapped = await store.replaceTokens({
          providerAccountId: stale.providerAccountId,
          expectedVersion: stale.version,
          tokens: current.tokens,
        })
        return swapped !== null
      },
    })),
    caught: [id('reseals'), id('refresh-after-rewrite'), id('exact-envelope')],
  },
  {
    name: 'a listing that ignores the active key version',
    factory: flawed((store) => ({
      listStaleEnvelopes: async (request: Listing) =>
        memoryList(store, {
          ...accounts.requireStaleEnvelopeListing(request),
          activeKeyVersion: 'not-a-version-in-use',
        }),
    })),
    caught: [id('listing')],
  },
  {
    name: 'a listing that forgets revocation retries',
    factory: flawed((store) => ({
      async listStaleEnvelopes(request: Listing) {
        const listed = await memoryList(store, request)
        return listed.filter((stale) => stale.kind === 'vault-tokens')
      },
    })),
    caught: [id('reseals'), id('refresh-before-rewrite'), id('unreadable-reported'), id('listing')],
  },
  {
    name: 'a listing that ignores its cursor',
    factory: flawed((store) => ({
      listStaleEnvelopes: async (request: Listing) => {
        const { activeKeyVersion, limit } = accounts.requireStaleEnvelopeListing(request)
        return memoryList(store, { activeKeyVersion, limit })
      },
    })),
    caught: [id('listing')],
  },
  {
    name: 'lenient input',
    factory: flawed((store) => ({
      listStaleEnvelopes: (request: Listing) =>
        memoryList(store, request).catch(() => memoryList(store, { activeKeyVersion: 'v2', limit: 10 })),
      rewriteEnvelope: (request: Rewrite) => memoryRewrite(store, request).catch(() => false),
    })),
    caught: [id('input')],
  },
]
