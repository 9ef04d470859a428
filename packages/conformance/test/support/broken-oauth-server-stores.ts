import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  MemoryOAuthServerStore,
  type OAuthGrants,
  type OAuthServerStore,
} from '@portcullis/core/authorization-server'
import { MemoryMailOutbox, type OutboxEntry } from '@portcullis/core/mail'
import { MemoryRevocationNotices, type RevocationNotice } from '@portcullis/core/revocation'
import type {
  OAuthServerStoreFactory,
  OAuthServerStoreFactoryOptions,
  OAuthServerStoreFixture,
} from '../../src/authorization-server/index.js'

type Store = OAuthServerStore & OAuthGrants

/**
 * The reference memory store over a memory account store, with a recorder of the notices it publishes.
 * `clock` may be swapped under the store (the expiry flaw reads the store at another instant).
 */
export function memoryOAuthServerFixture(
  options: OAuthServerStoreFactoryOptions,
  clock: () => number = options.clock,
  { withOutbox = true }: { readonly withOutbox?: boolean } = {},
): OAuthServerStoreFixture & { readonly memory: MemoryOAuthServerStore; readonly mail?: MemoryMailOutbox } {
  const notices = new MemoryRevocationNotices()
  const heard: RevocationNotice[] = []
  notices.subscribe({ revoked: (notice) => heard.push(notice), flush: () => undefined })
  const accounts = new MemoryAccountStore()
  const outbox = withOutbox ? new MemoryMailOutbox() : undefined
  const memory = new MemoryOAuthServerStore({ accounts, notices, clock, ...(outbox ? { outbox } : {}) })
  return { store: memory, memory, accounts, heard: () => heard, ...(outbox ? { outbox, mail: outbox } : {}) }
}

type MemoryFixture = ReturnType<typeof memoryOAuthServerFixture>

/** The memory store with some methods replaced. */
function flawed(
  replace: (inner: Store, fixture: MemoryFixture) => Partial<Store>,
  build: (options: OAuthServerStoreFactoryOptions) => MemoryFixture = memoryOAuthServerFixture,
): OAuthServerStoreFactory {
  return (options) => {
    const fixture = build(options)
    const inner = fixture.memory
    const store: Store = {
      upsert: (entry, change) => inner.upsert(entry, change),
      find: (model, key) => inner.find(model, key),
      consume: (model, id) => inner.consume(model, id),
      rotate: (model, id, replacement) => inner.rotate(model, id, replacement),
      destroy: (model, id) => inner.destroy(model, id),
      revokeGrant: (grantId) => inner.revokeGrant(grantId),
      list: (accountId) => inner.list(accountId),
      disconnect: (accountId, grantId) => inner.disconnect(accountId, grantId),
      status: (grantId) => inner.status(grantId),
      ...replace(inner, fixture),
    }
    return { ...fixture, store }
  }
}

export interface BrokenOAuthServerStore {
  readonly name: string
  readonly factory: OAuthServerStoreFactory
  /** Exactly the cases it must fail. */
  readonly caught: readonly string[]
}

export const brokenOAuthServerStores: readonly BrokenOAuthServerStore[] = [
  {
    // A code redeemed twice: the consumed mark is read, then written after an await.
    name: 'check-then-set consume',
    caught: ['oauth_server.consume-race'],
    factory: flawed((inner) => ({
      async consume(model, id) {
        const found = await inner.find(model, { id })
        if (found === undefined) return 'missing'
        if (found.consumedAt !== undefined) return 'already-consumed'
        await new Promise((resolve) => setTimeout(resolve, 1))
        await inner.consume(model, id)
        return 'consumed'
      },
    })),
  },
  {
    // A refresh token reused: consume marks the entry but always answers consumed.
    name: 'consume always answers consumed',
    caught: ['oauth_server.consume-once', 'oauth_server.consume-race'],
    factory: flawed((inner) => ({
      async consume(model, id) {
        const outcome = await inner.consume(model, id)
        return outcome === 'missing' ? 'missing' : 'consumed'
      },
    })),
  },
  {
    // A rotation in two steps: the old token is consumed, then its replacement saved; a failed save
    // leaves the old token spent (the client's retry is taken for a reuse).
    name: 'rotate as consume then upsert',
    caught: ['oauth_server.rotate-refused'],
    factory: flawed((inner) => ({
      async rotate(model, id, replacement) {
        const outcome = await inner.consume(model, id)
        if (outcome === 'consumed') await inner.upsert(replacement)
        return outcome
      },
    })),
  },
  {
    // The replacement saved before the consumption is decided: a reuse leaves a live token behind.
    name: 'rotate saves the replacement first',
    caught: ['oauth_server.rotate-once', 'oauth_server.rotate-race'],
    factory: flawed((inner) => ({
      async rotate(model, id, replacement) {
        await inner.upsert(replacement)
        return inner.consume(model, id)
      },
    })),
  },
  {
    // An expired entry returned: find ignores expiresAt.
    name: 'find returns expired entries',
    caught: ['oauth_server.expiry'],
    factory: (() => {
      let ignoreExpiry = false
      return flawed(
        (inner) => ({
          find(model, key) {
            // The memory store reads its clock before its first await: this find sees nothing expired.
            ignoreExpiry = true
            try {
              return inner.find(model, key)
            } finally {
              ignoreExpiry = false
            }
          },
        }),
        (options) => memoryOAuthServerFixture(options, () => (ignoreExpiry ? 0 : options.clock())),
      )
    })(),
  },
  {
    // Revoked without telling the other instances: their caches keep the grant's tokens.
    name: 'revokeGrant without a notice',
    caught: ['oauth_server.revoke-grant', 'oauth_server.disconnect-owner'],
    factory: (options) => {
      const fixture = memoryOAuthServerFixture(options)
      const quiet = new MemoryOAuthServerStore({
        accounts: fixture.accounts,
        clock: options.clock,
        ...(fixture.mail === undefined ? {} : { outbox: fixture.mail }),
      })
      return { ...fixture, store: quiet }
    },
  },
  {
    // A grant that outlives sign-out everywhere: status checks the account's status, not its epoch.
    name: 'status ignores the security epoch',
    caught: ['oauth_server.grant-status'],
    factory: flawed((inner, fixture) => ({
      async status(grantId) {
        const grant = await inner.find('Grant', { id: grantId })
        const accountId = grant?.payload.accountId
        const clientId = grant?.payload.clientId
        if (typeof accountId !== 'string' || typeof clientId !== 'string') return undefined
        const account = await fixture.accounts.getAccount(accountId)
        return account?.status === 'active' ? { grantId, accountId, clientId } : undefined
      },
    })),
  },
  {
    // The connection notice enqueued on its own, before the grant is saved: a grant that is then refused
    // (another account's person, not a grant, an invalid entry) is still announced.
    name: 'notifications outside the grant',
    caught: ['oauth_server.grant-outbox'],
    factory: flawed((inner, fixture) => ({
      async upsert(entry, change?: { readonly outbox?: readonly OutboxEntry[] | undefined }) {
        const entries = change?.outbox ?? []
        if (entries.length > 0) await fixture.mail?.enqueue(entries)
        return inner.upsert(entry)
      },
    })),
  },
]
