import type { MemoryAccountData, MemorySignInMethods } from '../accounts/memory-tables.js'
import type { PasskeySignInMethod } from '../accounts/records.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import type { MemoryMailOutbox } from '../mail/memory-outbox.js'
import type { OutboxEntry } from '../mail/outbox.js'
import { PasskeyError, PasskeyErrorCodes } from './errors.js'
import {
  requireCredentialId,
  requirePasskeyAccountId,
  requirePasskeyDate,
  requirePasskeyName,
  validatePasskeyAccountRequest,
  validatePasskeyChallenge,
  validatePasskeyChallengeKey,
  validatePasskeyChangeOptions,
  validatePasskeyCredential,
  validateRecordPasskeyUse,
} from './input.js'
import type { PasskeyChallenge, PasskeyCredential } from './records.js'
import type {
  PasskeyAccountRequest,
  PasskeyChallengeKey,
  PasskeyChallengeStore,
  PasskeyChangeOptions,
  PasskeyStore,
  RecordPasskeyUseRequest,
  RemovePasskeyOutcome,
} from './store.js'

const copy = (credential: PasskeyCredential): PasskeyCredential =>
  Object.freeze({ ...credential, publicKey: new Uint8Array(credential.publicKey) })

/**
 * In-memory `PasskeyStore` (tests, one process): each operation runs without an await in between. Pass it
 * in `MemoryAccountStore({ cascade })` so deleting an account removes its passkeys.
 */
export class MemoryPasskeyStore implements PasskeyStore, MemoryAccountData {
  readonly #credentials = new Map<string, PasskeyCredential>()
  #accounts: MemorySignInMethods | undefined
  readonly #outbox: MemoryMailOutbox | undefined

  /**
   * `outbox`: where the security notifications of adding and removing a passkey are written, in the
   * change's step and only when the change happens. Without it, a change that carries entries is refused
   * (`passkey.outbox_not_configured`) and nothing changes.
   */
  constructor(options: { readonly outbox?: MemoryMailOutbox } = {}) {
    this.#outbox = options.outbox
  }

  /** The writer of `entries` (checked now), run in the change's synchronous step. */
  #stage(entries: readonly OutboxEntry[]): () => void {
    if (entries.length === 0) return () => {}
    if (this.#outbox === undefined) {
      throw new ConfigurationError(
        'passkey.outbox_not_configured',
        'this MemoryPasskeyStore has no outbox: pass { outbox: MemoryMailOutbox } to write notifications with changes',
      )
    }
    return this.#outbox.prepareWrite(entries)
  }

  async addPasskey(
    credential: PasskeyCredential,
    options?: PasskeyChangeOptions,
  ): Promise<'added' | 'duplicate'> {
    const valid = validatePasskeyCredential(credential)
    const write = this.#stage(validatePasskeyChangeOptions(options))
    if (this.#credentials.has(valid.credentialId)) return 'duplicate'
    this.#credentials.set(valid.credentialId, valid)
    write()
    return 'added'
  }

  async findPasskey(credentialId: string): Promise<PasskeyCredential | null> {
    const found = this.#credentials.get(requireCredentialId(credentialId))
    return found === undefined ? null : copy(found)
  }

  async listPasskeys(accountId: string): Promise<readonly PasskeyCredential[]> {
    const id = requirePasskeyAccountId(accountId)
    return [...this.#credentials.values()]
      .filter((credential) => credential.accountId === id)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .map(copy)
  }

  async recordPasskeyUse(request: RecordPasskeyUseRequest): Promise<boolean> {
    const { credentialId, expectedCounter, counter, backedUp, now } = validateRecordPasskeyUse(request)
    const stored = this.#credentials.get(credentialId)
    if (stored === undefined || stored.suspendedAt !== null || stored.counter !== expectedCounter)
      return false
    this.#credentials.set(credentialId, { ...stored, counter, backedUp, lastUsedAt: now })
    return true
  }

  async suspendPasskey(credentialId: string, now: Date): Promise<boolean> {
    const stored = this.#credentials.get(requireCredentialId(credentialId))
    const at = requirePasskeyDate(now, 'now')
    if (stored === undefined) return false
    if (stored.suspendedAt === null)
      this.#credentials.set(stored.credentialId, { ...stored, suspendedAt: at })
    return true
  }

  async renamePasskey(request: PasskeyAccountRequest & { readonly name: string }): Promise<boolean> {
    const { accountId, credentialId } = validatePasskeyAccountRequest(request)
    const name = requirePasskeyName(request.name)
    const stored = this.#credentials.get(credentialId)
    if (stored?.accountId !== accountId) return false
    this.#credentials.set(credentialId, { ...stored, name })
    return true
  }

  async removePasskey(
    request: PasskeyAccountRequest,
    options?: PasskeyChangeOptions,
  ): Promise<RemovePasskeyOutcome> {
    const { accountId, credentialId } = validatePasskeyAccountRequest(request)
    const write = this.#stage(validatePasskeyChangeOptions(options))
    const stored = this.#credentials.get(credentialId)
    if (stored?.accountId !== accountId) return 'not-found'
    const accounts = this.#accounts
    const usable = stored.suspendedAt === null
    if (usable && accounts?.hasAccount(accountId) && accounts.methodCount(accountId) <= 1)
      return 'final-method'
    this.#credentials.delete(credentialId)
    write()
    return 'removed'
  }

  /** The account's usable (not suspended) passkeys: sign-in methods for `MemoryAccountStore`. */
  signInMethods(accountId: string): readonly PasskeySignInMethod[] {
    const methods: PasskeySignInMethod[] = []
    for (const credential of this.#credentials.values()) {
      if (credential.accountId !== accountId || credential.suspendedAt !== null) continue
      const { credentialId, name, createdAt, lastUsedAt } = credential
      methods.push({ kind: 'passkey', accountId, credentialId, name, createdAt, lastUsedAt })
    }
    return methods
  }

  /** `MemoryAccountStore({ cascade })` hands over its tables, so removal can refuse the last method. */
  joinAccountTables(methods: MemorySignInMethods): void {
    this.#accounts = methods
  }

  /** The account's passkeys go with it (`MemoryAccountStore({ cascade })`). */
  deleteAccountData(accountId: string): number {
    let removed = 0
    for (const [credentialId, credential] of this.#credentials) {
      if (credential.accountId !== accountId) continue
      this.#credentials.delete(credentialId)
      removed += 1
    }
    return removed
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemoryPasskeyStore { passkeys: ${this.#credentials.size} }`
  }
}

/**
 * In-memory `PasskeyChallengeStore`: consume is atomic (no await between find and delete). In
 * `MemoryAccountStore({ cascade })`, deleting an account drops its pending registration and step-up
 * challenges.
 */
export class MemoryPasskeyChallengeStore implements PasskeyChallengeStore, MemoryAccountData {
  readonly #challenges = new Map<string, PasskeyChallenge>()

  async createChallenge(challenge: PasskeyChallenge): Promise<void> {
    const valid = validatePasskeyChallenge(challenge)
    if (this.#challenges.has(valid.challengeDigest)) {
      throw new PasskeyError(PasskeyErrorCodes.invalidInput, 'the challenge digest is already stored')
    }
    this.#challenges.set(valid.challengeDigest, valid)
  }

  async consumeChallenge(key: PasskeyChallengeKey, now: Date): Promise<PasskeyChallenge | null> {
    const { challengeDigest, bindingDigest } = validatePasskeyChallengeKey(key)
    const at = requirePasskeyDate(now, 'now')
    const stored = this.#challenges.get(challengeDigest)
    if (stored === undefined || stored.bindingDigest !== bindingDigest) return null
    this.#challenges.delete(challengeDigest)
    return stored.expiresAt.getTime() > at.getTime() ? stored : null
  }

  async purgeExpiredChallenges(now: Date): Promise<number> {
    const at = requirePasskeyDate(now, 'now').getTime()
    let removed = 0
    for (const [digest, challenge] of this.#challenges) {
      if (challenge.expiresAt.getTime() <= at) {
        this.#challenges.delete(digest)
        removed += 1
      }
    }
    return removed
  }

  /** The account's pending registration and step-up challenges go with it. */
  deleteAccountData(accountId: string): number {
    let removed = 0
    for (const [digest, challenge] of this.#challenges) {
      if (challenge.accountId !== accountId) continue
      this.#challenges.delete(digest)
      removed += 1
    }
    return removed
  }
}
