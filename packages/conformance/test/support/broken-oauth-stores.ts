import { randomUUID } from 'node:crypto'
import { setImmediate as tick } from 'node:timers/promises'
import type { AccountStore } from '@portcullis/core/accounts'
import type { OutboxEntry } from '@portcullis/core/mail'
import { accounts } from '@portcullis/core/oauth'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import type { OAuthAccountStoreFixture } from '../../src/oauth/index.js'
import { memoryFixture, realProtector } from './memory-fixtures.js'

type Store = accounts.OAuthAccountStore
type Req<K extends keyof Store> = Store[K] extends (request: infer R) => unknown ? R : never

/** A store that forwards every operation to a correct memory store; broken variants override one. */
function forwarding(inner: Store): Store {
  return {
    provider: inner.provider,
    clientId: inner.clientId,
    getAccount: (accountId) => inner.getAccount(accountId),
    login: (request) => inner.login(request),
    link: (request) => inner.link(request),
    upgradeScopes: (request) => inner.upgradeScopes(request),
    unlink: (request) => inner.unlink(request),
    resolveLink: (request) => inner.resolveLink(request),
    getTokens: (id) => inner.getTokens(id),
    replaceTokens: (request) => inner.replaceTokens(request),
    discardTokens: (request) => inner.discardTokens(request),
    stageRevocationRetry: (request) => inner.stageRevocationRetry(request),
    claimRevocationRetries: (request) => inner.claimRevocationRetries(request),
    completeRevocationRetry: (request) => inner.completeRevocationRetry(request),
  }
}

function broken(
  override: (inner: Store, accountStore: AccountStore) => Partial<Store>,
  protector?: OAuthTransactionProtector,
): () => OAuthAccountStoreFixture {
  return () => {
    const fixture = memoryFixture(protector)
    return {
      ...fixture,
      store: { ...forwarding(fixture.store), ...override(fixture.store, fixture.accountStore) },
    }
  }
}

/** A password account made on the side (a broken store's stand-in for a real method). */
async function sideAccount(accountStore: AccountStore, accountId = `racy-${randomUUID()}`): Promise<string> {
  await accountStore.createAccount({
    accountId,
    username: `racy.${randomUUID()}`,
    passwordHash: '$argon2id$racy',
    now: new Date(),
  })
  return accountId
}

/** Stores plaintext "envelopes" and ignores associated data. */
const plaintextProtector: OAuthTransactionProtector = {
  activeKeyVersion: 'plain',
  protect: async (plaintext) => ({ keyVersion: 'plain', ciphertext: Uint8Array.from(plaintext) }),
  unprotect: async (envelope) => Uint8Array.from(envelope.ciphertext),
}

/** Real AES-GCM, but the caller's associated data is replaced by one constant. */
function aadIgnoringProtector(): OAuthTransactionProtector {
  const real = realProtector()
  const none = new TextEncoder().encode('the same associated data for every record')
  return {
    activeKeyVersion: real.activeKeyVersion,
    protect: (plaintext) => real.protect(plaintext, none),
    unprotect: (envelope) => real.unprotect(envelope, none),
  }
}

/** Versions restart at 1 for every new token generation, as a naive "version = version + 1" row would. */
function restartingVersions(inner: Store): Partial<Store> {
  const generations = new Map<string, { real: Map<number, number>; next: number }>()
  const fake = (id: string, real: number): number => {
    let generation = generations.get(id)
    if (generation === undefined) {
      generation = { real: new Map(), next: 1 }
      generations.set(id, generation)
    }
    let value = generation.real.get(real)
    if (value === undefined) {
      value = generation.next
      generation.next += 1
      generation.real.set(real, value)
    }
    return value
  }
  const restart = (id: string) => generations.delete(id)
  const mapReference = (reference: accounts.ProviderTokenReference | null) =>
    reference === null
      ? null
      : { ...reference, version: fake(reference.providerAccountId, reference.version) }
  return {
    login: async (request) => {
      const outcome = await inner.login(request)
      restart(outcome.link.providerAccountId)
      return { ...outcome, tokens: mapReference(outcome.tokens) }
    },
    link: async (request) => {
      const outcome = await inner.link(request)
      restart(outcome.link.providerAccountId)
      return { ...outcome, tokens: mapReference(outcome.tokens) }
    },
    getTokens: async (id) => {
      const stored = await inner.getTokens(id)
      return stored === null
        ? null
        : { ...stored, reference: { ...stored.reference, version: fake(id, stored.reference.version) } }
    },
    replaceTokens: async (request: Req<'replaceTokens'>) => {
      const current = await inner.getTokens(request.providerAccountId)
      if (
        current === null ||
        fake(request.providerAccountId, current.reference.version) !== request.expectedVersion
      )
        return null
      const reference = await inner.replaceTokens({ ...request, expectedVersion: current.reference.version })
      return mapReference(reference)
    },
    discardTokens: async (request) => {
      const current = await inner.getTokens(request.providerAccountId)
      if (current === null) return false
      if (
        request.expectedVersion !== undefined &&
        fake(request.providerAccountId, current.reference.version) !== request.expectedVersion
      ) {
        return false
      }
      restart(request.providerAccountId)
      return inner.discardTokens({ providerAccountId: request.providerAccountId })
    },
  }
}

export interface BrokenOAuthStore {
  readonly name: string
  readonly factory: () => OAuthAccountStoreFixture
  /** Cases that must report this breakage. */
  readonly caught: readonly string[]
}

/**
 * Enqueues each link's and unlink's notification first, in a step of its own, and then makes the change
 * without it: a relink, a refused link or an unlink that finds nothing is still notified.
 */
function notifiesOutsideTheChange(): OAuthAccountStoreFixture {
  const fixture = memoryFixture()
  const { outbox } = fixture
  if (outbox === undefined) throw new Error('setup: the memory fixture has an outbox')
  const inner = fixture.store
  const first = async (entries: readonly OutboxEntry[] | undefined) => {
    if (entries !== undefined && entries.length > 0) await outbox.enqueue(entries)
  }
  return {
    ...fixture,
    store: {
      ...forwarding(inner),
      link: async ({ outbox: entries, ...request }) => {
        await first(entries)
        return inner.link(request)
      },
      unlink: async ({ outbox: entries, ...request }) => {
        await first(entries)
        return inner.unlink(request)
      },
    },
  }
}

export const brokenOAuthStores: readonly BrokenOAuthStore[] = [
  {
    name: 'notifications outside the change',
    factory: notifiesOutsideTheChange,
    caught: ['oauth-accounts.outbox-atomic'],
  },
  {
    name: 'provider-blind unlink',
    factory: broken((inner) => ({
      unlink: (request) => inner.unlink({ ...request, provider: inner.provider }),
    })),
    caught: ['oauth-accounts.unlink.not-found'],
  },
  {
    name: 'check-then-insert provisioning',
    factory: broken((inner, accountStore) => ({
      login: async (request) => {
        try {
          return await inner.login({ ...request, provisionUnknown: false })
        } catch (error) {
          if (!request.provisionUnknown) throw error
          await tick()
          const accountId = await sideAccount(accountStore)
          const { tokens, now, identity, grant } = request
          const linked = await inner.link({ accountId, identity, grant, now, ...(tokens ? { tokens } : {}) })
          return { provisioned: true, link: linked.link, tokens: linked.tokens }
        }
      },
    })),
    caught: ['oauth-accounts.login.provisioning-race'],
  },
  {
    name: 'link that swallows conflicts',
    factory: broken((inner) => ({
      link: async (request) => {
        try {
          return await inner.link(request)
        } catch (error) {
          if (!(error instanceof accounts.AccountLinkError)) throw error
          const { identity, grant, now, accountId } = request
          const link: accounts.LinkedProviderAccount = {
            providerAccountId: 'fabricated',
            accountId,
            provider: inner.provider,
            issuer: identity.issuer,
            subject: identity.subject,
            email: null,
            emailVerified: null,
            grant: { scopes: [...grant.scopes], expiresAt: null },
            linkedAt: now,
            updatedAt: now,
          }
          return { status: 'linked', link, tokens: null }
        }
      },
    })),
    caught: [
      'oauth-accounts.link.identity-linked-elsewhere',
      'oauth-accounts.link.provider-already-linked',
      'oauth-accounts.link.concurrent-claims',
    ],
  },
  {
    name: 'unlink that deletes the final method',
    factory: broken((inner, accountStore) => ({
      unlink: async (request) => {
        const outcome = await inner.unlink(request)
        if (outcome.status !== 'final-method') return outcome
        await accountStore.addPassword({
          accountId: request.accountId,
          username: `phantom.${randomUUID()}`,
          passwordHash: '$argon2id$phantom',
          now: new Date(),
        })
        return inner.unlink(request)
      },
    })),
    caught: ['oauth-accounts.unlink.final-method'],
  },
  {
    name: 'non-atomic unlink (two winners)',
    factory: broken((inner) => ({
      unlink: async (request) => {
        const link = await inner.resolveLink({ accountId: request.accountId, provider: request.provider })
        await tick()
        if (link?.providerAccountId !== request.providerAccountId) return { status: 'not-found' }
        const outcome = await inner.unlink(request)
        return outcome.status === 'final-method'
          ? outcome
          : { status: 'unlinked', providerAccountId: request.providerAccountId, securityEpoch: 0 }
      },
    })),
    caught: ['oauth-accounts.unlink.concurrent-race'],
  },
  {
    name: 'CAS that ignores the expected version (last writer wins)',
    factory: broken((inner) => ({
      replaceTokens: async (request) => {
        for (;;) {
          const current = await inner.getTokens(request.providerAccountId)
          if (current === null) return null
          const swapped = await inner.replaceTokens({
            ...request,
            expectedVersion: current.reference.version,
          })
          if (swapped !== null) return swapped
        }
      },
    })),
    caught: [
      'oauth-accounts.vault.cas-one-winner',
      'oauth-accounts.vault.versions-grow',
      'oauth-accounts.vault.no-aba',
    ],
  },
  {
    name: 'versions that restart after a discard (ABA)',
    factory: broken(restartingVersions),
    caught: ['oauth-accounts.vault.no-aba'],
  },
  {
    name: 'discard that ignores the expected version',
    factory: broken((inner) => ({
      discardTokens: (request) => inner.discardTokens({ providerAccountId: request.providerAccountId }),
    })),
    caught: ['oauth-accounts.vault.conditional-discard'],
  },
  {
    name: 'plaintext vault',
    factory: broken(() => ({}), plaintextProtector),
    caught: [
      'oauth-accounts.vault.ciphertext',
      'oauth-accounts.vault.bound-to-row',
      'oauth-accounts.retry.stage',
    ],
  },
  {
    name: 'envelopes not bound to their row',
    factory: broken(() => ({}), aadIgnoringProtector()),
    caught: ['oauth-accounts.vault.bound-to-row'],
  },
  {
    name: 'staging that ignores the version',
    factory: broken((inner) => ({
      stageRevocationRetry: async (request) => {
        const current = await inner.getTokens(request.providerAccountId)
        if (current === null) return null
        return inner.stageRevocationRetry({ ...request, expectedVersion: current.reference.version })
      },
    })),
    caught: ['oauth-accounts.retry.stage-stale'],
  },
  {
    name: 'claims that ignore leases',
    factory: broken((inner) => {
      const handedOut: accounts.ClaimedRevocationRetry[] = []
      return {
        claimRevocationRetries: async (request) => {
          const fresh = await inner.claimRevocationRetries(request)
          handedOut.push(...fresh)
          return [...handedOut].slice(0, request.limit)
        },
      }
    }),
    caught: ['oauth-accounts.retry.concurrent-claims', 'oauth-accounts.retry.lease'],
  },
  {
    name: 'lenient input',
    factory: broken((inner) => ({
      link: async (request) => {
        try {
          return await inner.link(request)
        } catch (error) {
          if ((error as { code?: string }).code !== accounts.OAuthAccountErrorCodes.invalidInput) throw error
          throw new Error('bad input')
        }
      },
    })),
    caught: ['oauth-accounts.input.blank-ids', 'oauth-accounts.input.scopes', 'oauth-accounts.input.dates'],
  },
]
