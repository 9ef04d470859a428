import type { OutboxEntry } from '../mail/outbox.js'
import type { PasskeyChallenge, PasskeyCredential } from './records.js'

/** What `addPasskey` and `removePasskey` write with their change. */
export interface PasskeyChangeOptions {
  /**
   * Security notifications of the change (`SecurityNotifier.entries`), written in the same transaction
   * and only when the change happens (not for a `duplicate`, `not-found` or `final-method`).
   */
  readonly outbox?: readonly OutboxEntry[] | undefined
}

export interface RecordPasskeyUseRequest {
  readonly credentialId: string
  /** The counter the verification was checked against (compare-and-swap). */
  readonly expectedCounter: number
  /** The counter of the accepted assertion: above `expectedCounter`, or 0 when both are 0. */
  readonly counter: number
  readonly backedUp: boolean
  readonly now: Date
}

/** The outcome of `removePasskey`. */
export type RemovePasskeyOutcome = 'removed' | 'not-found' | 'final-method'

export interface PasskeyAccountRequest {
  readonly accountId: string
  readonly credentialId: string
}

/**
 * Port: registered passkeys, keyed by credential id, each a sign-in method of one account. Every
 * operation is one transaction.
 */
export interface PasskeyStore {
  /**
   * Stores a new passkey, with `outbox` in the same transaction; `duplicate` (nothing changes, nothing
   * is written) when its credential id is already stored.
   */
  addPasskey(credential: PasskeyCredential, options?: PasskeyChangeOptions): Promise<'added' | 'duplicate'>
  findPasskey(credentialId: string): Promise<PasskeyCredential | null>
  /** The account's passkeys, oldest first. */
  listPasskeys(accountId: string): Promise<readonly PasskeyCredential[]>
  /**
   * Records an accepted assertion: the counter moves from exactly `expectedCounter` to `counter`, and
   * `lastUsedAt` to `now`. False (nothing changes) when the stored counter is no longer
   * `expectedCounter` or the passkey is suspended or gone: of two assertions racing with one counter, one wins.
   */
  recordPasskeyUse(request: RecordPasskeyUseRequest): Promise<boolean>
  /** Marks the passkey possibly cloned (its counter went backwards); false when it is gone. */
  suspendPasskey(credentialId: string, now: Date): Promise<boolean>
  /** Renames one of the account's passkeys; false when the account has no such passkey. */
  renamePasskey(request: PasskeyAccountRequest & { readonly name: string }): Promise<boolean>
  /**
   * Removes one of the account's passkeys: `not-found` when the account has no such passkey,
   * `final-method` (nothing changes) when the account exists in the account store over the same storage
   * and this usable passkey is its last way to sign in (password, provider identities and usable
   * passkeys are counted under the account's lock, as for every other method's removal). `outbox` is
   * written in the same transaction, only when the passkey is `removed`.
   */
  removePasskey(request: PasskeyAccountRequest, options?: PasskeyChangeOptions): Promise<RemovePasskeyOutcome>
}

/** The key a ceremony's challenge is found by: both digests must match. */
export interface PasskeyChallengeKey {
  readonly challengeDigest: string
  readonly bindingDigest: string
}

/**
 * Port: pending WebAuthn challenges, server-side and one-use. `consumeChallenge` finds the challenge by
 * both digests, removes it and returns it in one atomic step (of concurrent consumers exactly one gets
 * it); null for an unknown key, a used challenge or one with `now >= expiresAt`. A lookup under another
 * browser binding never touches it.
 */
export interface PasskeyChallengeStore {
  /** Stores a challenge; a second one with the same challenge digest is `passkey.invalid_input`. */
  createChallenge(challenge: PasskeyChallenge): Promise<void>
  consumeChallenge(key: PasskeyChallengeKey, now: Date): Promise<PasskeyChallenge | null>
  /** Deletes challenges expired at `now`; how many. */
  purgeExpiredChallenges(now: Date): Promise<number>
}
