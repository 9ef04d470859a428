import { setImmediate as tick } from 'node:timers/promises'
import { MemoryMailOutbox, type OutboxEntry } from '@portcullis/core/mail'
import {
  MemoryPasskeyChallengeStore,
  MemoryPasskeyStore,
  type PasskeyAccountRequest,
  type PasskeyChallenge,
  type PasskeyChallengeKey,
  type PasskeyChallengeStore,
  type PasskeyCredential,
  type PasskeyStore,
  type RecordPasskeyUseRequest,
  type RemovePasskeyOutcome,
} from '@portcullis/core/passkeys'
import type { PasskeyChallengeStoreFixture, PasskeyStoreFixture } from '../../src/passkeys/index.js'

type PasskeyFlaw =
  | 'last-writer-wins'
  | 'non-atomic-use'
  | 'overwriting'
  | 'owner-blind'
  | 'suspension-ignored'

/** A naive passkey store over the memory one; each flaw breaks one invariant. */
class NaivePasskeyStore implements PasskeyStore {
  readonly #inner = new MemoryPasskeyStore()
  readonly #extra = new Map<string, PasskeyCredential>()

  constructor(private readonly flaw: PasskeyFlaw) {}

  async addPasskey(credential: PasskeyCredential): Promise<'added' | 'duplicate'> {
    const answer = await this.#inner.addPasskey(credential)
    if (answer === 'duplicate' && this.flaw === 'overwriting')
      this.#extra.set(credential.credentialId, credential)
    return this.flaw === 'overwriting' ? 'added' : answer
  }

  async findPasskey(credentialId: string): Promise<PasskeyCredential | null> {
    return this.#extra.get(credentialId) ?? this.#inner.findPasskey(credentialId)
  }

  listPasskeys(accountId: string) {
    return this.#inner.listPasskeys(accountId)
  }

  async recordPasskeyUse(request: RecordPasskeyUseRequest): Promise<boolean> {
    const stored = await this.#inner.findPasskey(request.credentialId)
    if (stored === null) return false
    if (this.flaw === 'suspension-ignored' && stored.suspendedAt !== null) return true
    if (this.flaw === 'last-writer-wins' || this.flaw === 'non-atomic-use') {
      if (this.flaw === 'non-atomic-use') {
        if (stored.counter !== request.expectedCounter) return false
        await tick()
      }
      await this.#inner.removePasskey({ accountId: stored.accountId, credentialId: stored.credentialId })
      await this.#inner.addPasskey({
        ...stored,
        counter: request.counter,
        backedUp: request.backedUp,
        lastUsedAt: request.now,
      })
      return true
    }
    return this.#inner.recordPasskeyUse(request)
  }

  suspendPasskey(credentialId: string, now: Date) {
    return this.#inner.suspendPasskey(credentialId, now)
  }

  async renamePasskey(request: PasskeyAccountRequest & { readonly name: string }): Promise<boolean> {
    const stored = await this.#inner.findPasskey(request.credentialId)
    const accountId = this.flaw === 'owner-blind' && stored !== null ? stored.accountId : request.accountId
    return this.#inner.renamePasskey({ ...request, accountId })
  }

  async removePasskey(request: PasskeyAccountRequest): Promise<RemovePasskeyOutcome> {
    const stored = await this.#inner.findPasskey(request.credentialId)
    const accountId = this.flaw === 'owner-blind' && stored !== null ? stored.accountId : request.accountId
    return this.#inner.removePasskey({ ...request, accountId })
  }
}

type ChallengeFlaw = 'replaying' | 'binding-blind' | 'non-atomic' | 'expiry-ignored'

/** A naive challenge store; each flaw breaks one invariant. */
class NaiveChallengeStore implements PasskeyChallengeStore {
  readonly #inner = new MemoryPasskeyChallengeStore()
  readonly #copies = new Map<string, PasskeyChallenge>()

  constructor(private readonly flaw: ChallengeFlaw) {}

  async createChallenge(challenge: PasskeyChallenge): Promise<void> {
    await this.#inner.createChallenge(challenge)
    this.#copies.set(challenge.challengeDigest, challenge)
  }

  async consumeChallenge(key: PasskeyChallengeKey, now: Date): Promise<PasskeyChallenge | null> {
    const copy = this.#copies.get(key.challengeDigest) ?? null
    if (this.flaw === 'replaying')
      return copy !== null && copy.bindingDigest === key.bindingDigest ? copy : null
    if (this.flaw === 'binding-blind') {
      if (copy === null) return null
      return this.#inner.consumeChallenge({ ...key, bindingDigest: copy.bindingDigest }, now)
    }
    if (this.flaw === 'expiry-ignored') return this.#inner.consumeChallenge(key, new Date(0))
    if (copy === null || copy.bindingDigest !== key.bindingDigest) return null
    await tick()
    this.#copies.delete(key.challengeDigest)
    return copy.expiresAt > now ? copy : null
  }

  purgeExpiredChallenges(now: Date) {
    return this.#inner.purgeExpiredChallenges(now)
  }
}

export interface Broken<Fixture> {
  readonly name: string
  readonly factory: () => Fixture
  readonly caught: readonly string[]
}

const naivePasskeys = (flaw: PasskeyFlaw) => () => ({ store: new NaivePasskeyStore(flaw) })
const naiveChallenges = (flaw: ChallengeFlaw) => () => ({ store: new NaiveChallengeStore(flaw) })

/**
 * Enqueues each change's notification first, in a step of its own, and then makes the change without
 * it: a duplicate or a removal of a passkey the account does not have is still notified.
 */
function notifiesOutsideTheChange(): PasskeyStoreFixture {
  const outbox = new MemoryMailOutbox()
  const inner = new MemoryPasskeyStore()
  const first = async (options?: { readonly outbox?: readonly OutboxEntry[] | undefined }) => {
    if (options?.outbox !== undefined && options.outbox.length > 0) await outbox.enqueue(options.outbox)
  }
  const store = new Proxy(inner, {
    get(target, property) {
      if (property === 'addPasskey')
        return async (
          credential: PasskeyCredential,
          options?: { readonly outbox?: readonly OutboxEntry[] },
        ) => {
          await first(options)
          return target.addPasskey(credential)
        }
      if (property === 'removePasskey')
        return async (
          request: PasskeyAccountRequest,
          options?: { readonly outbox?: readonly OutboxEntry[] },
        ) => {
          await first(options)
          return target.removePasskey(request)
        }
      const value = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { store, outbox }
}

export const brokenPasskeyStores: readonly Broken<PasskeyStoreFixture>[] = [
  {
    name: 'notifications outside the change',
    factory: notifiesOutsideTheChange,
    caught: ['passkey.outbox-atomic'],
  },
  {
    name: 'counter written without compare',
    factory: naivePasskeys('last-writer-wins'),
    caught: ['passkey.counter-compare-and-swap'],
  },
  {
    name: 'check-then-write counter',
    factory: naivePasskeys('non-atomic-use'),
    caught: ['passkey.counter-compare-and-swap'],
  },
  { name: 'duplicate ids overwrite', factory: naivePasskeys('overwriting'), caught: ['passkey.round-trip'] },
  {
    name: 'rename and remove ignore the owner',
    factory: naivePasskeys('owner-blind'),
    caught: ['passkey.owner-only'],
  },
  {
    name: 'suspended passkeys still used',
    factory: naivePasskeys('suspension-ignored'),
    caught: ['passkey.suspended'],
  },
]

export const brokenChallengeStores: readonly Broken<PasskeyChallengeStoreFixture>[] = [
  {
    name: 'consume never deletes',
    factory: naiveChallenges('replaying'),
    caught: ['passkey-challenge.round-trip', 'passkey-challenge.concurrent-consume'],
  },
  {
    name: 'binding ignored',
    factory: naiveChallenges('binding-blind'),
    caught: ['passkey-challenge.other-browser'],
  },
  {
    name: 'check-then-delete consume',
    factory: naiveChallenges('non-atomic'),
    caught: ['passkey-challenge.concurrent-consume'],
  },
  {
    name: 'expiry ignored',
    factory: naiveChallenges('expiry-ignored'),
    caught: ['passkey-challenge.expiry'],
  },
]

export const memoryPasskeyFixture = (): PasskeyStoreFixture => {
  const outbox = new MemoryMailOutbox()
  return { store: new MemoryPasskeyStore({ outbox }), outbox }
}
export const memoryChallengeFixture = (): PasskeyChallengeStoreFixture => ({
  store: new MemoryPasskeyChallengeStore(),
})
