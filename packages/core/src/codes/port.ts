import type { OutboxEntry } from '../mail/outbox.js'

// The one store for every code a person receives by mail: verification, password reset, email change
// (and its undo), sign-in and invitations. Codes are kept only as HMAC digests (computed by core with
// the application's code key; the store compares them and never sees a code), bound to a flow handle
// and a purpose, attempt-limited, short-lived and consumed atomically: two instances racing on one code,
// exactly one wins.

/** What a code is for. A code of one purpose never satisfies another. */
export type CodePurpose =
  | 'email-verification'
  | 'password-reset'
  | 'email-change'
  | 'email-change-undo'
  | 'sign-in'
  | 'invitation'

/** A code as stored. */
export interface OneTimeCodeRecord {
  /**
   * The flow handle: random, URL-safe (22 to 64 of A-Z a-z 0-9 - _), carried by the link and by the
   * confirmation page; never the code itself.
   */
  readonly id: string
  readonly purpose: CodePurpose
  /** The account it acts on; null when the address has no account (so known and unknown cost the same). */
  readonly accountId: string | null
  /** The (normalized) address the code was sent to. */
  readonly address: string
  /** HMAC-SHA256 of the code, base64url, under key `keyVersion` (see `digestCode`). */
  readonly digest: string
  readonly keyVersion: number
  /** Wrong codes presented so far. */
  readonly attempts: number
  /** At `maxAttempts` wrong codes the record is deleted: the next guess finds nothing. */
  readonly maxAttempts: number
  readonly createdAt: Date
  readonly expiresAt: Date
  /**
   * Flow data sealed with the protector (for example the pending new address of an email change), or
   * null. Opaque to the store.
   */
  readonly payload: string | null
}

/** A new code: a record before any attempt. */
export type NewOneTimeCode = Omit<OneTimeCodeRecord, 'attempts'>

export interface IssueCodeRequest {
  readonly code: NewOneTimeCode
  /**
   * Delete the live codes of the same purpose and account (or, for a null account, the same address)
   * in the same transaction, so only the newest works. Default true.
   */
  readonly supersede?: boolean | undefined
  /** Messages written in the same transaction (the mail that carries the code). */
  readonly outbox?: readonly OutboxEntry[] | undefined
}

/** One digest of the presented code per key version the application still holds. */
export interface CodeCandidate {
  readonly keyVersion: number
  readonly digest: string
}

export interface ConsumeCodeRequest {
  readonly id: string
  readonly purpose: CodePurpose
  readonly candidates: readonly CodeCandidate[]
  readonly now: Date
}

/**
 * `consumed`: the code matched and is gone (single use). `mismatch`: a wrong code, counted;
 * `attemptsLeft` more may be tried. `exhausted`: that wrong code was the last allowed one and the
 * record is deleted. `expired` and `not-found` (unknown id, other purpose, used, superseded) count
 * nothing.
 */
export type ConsumeCodeOutcome =
  | { readonly outcome: 'consumed'; readonly code: OneTimeCodeRecord }
  | { readonly outcome: 'mismatch'; readonly attemptsLeft: number }
  | { readonly outcome: 'exhausted' }
  | { readonly outcome: 'expired' }
  | { readonly outcome: 'not-found' }

export interface RevokeCodesRequest {
  readonly accountId: string
  /** Only these purposes; every purpose when omitted. */
  readonly purposes?: readonly CodePurpose[] | undefined
}

export interface SweepCodesRequest {
  readonly now: Date
  /** At most this many rows per call (bounded sweep transactions). */
  readonly limit: number
}

/**
 * The durable boundary of one-time codes. Every operation is one transaction; `consume` is atomic under
 * concurrency (one winner, and every loser sees `not-found` or a counted mismatch, never a second
 * `consumed`). Memory: `MemoryOneTimeCodeStore`; Postgres: `PostgresOneTimeCodeStore`; conformance:
 * `assertOneTimeCodeStoreConformance`.
 */
export interface OneTimeCodeStore {
  issue(request: IssueCodeRequest): Promise<void>
  consume(request: ConsumeCodeRequest): Promise<ConsumeCodeOutcome>
  /** Deletes the account's live codes (after a reset or an epoch change); how many. */
  revoke(request: RevokeCodesRequest): Promise<number>
  /** Deletes expired codes, at most `limit`; how many. */
  sweep(request: SweepCodesRequest): Promise<number>
}
