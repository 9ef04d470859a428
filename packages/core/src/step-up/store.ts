/**
 * What a step-up store keeps for one credential. The token itself never reaches the store: only
 * `digest` (base64url SHA-256 of the token) and `sessionDigest` (of the session binding).
 */
export interface StepUpRecord {
  readonly digest: string
  readonly accountId: string
  readonly purpose: string
  readonly securityEpoch: number
  readonly sessionDigest: string
  readonly issuedAt: Date
  /** When the user last proved presence (for OIDC reauthentication, the signed `auth_time`). */
  readonly authenticatedAt: Date
  readonly expiresAt: Date
}

/** Port: one-use step-up credentials, keyed by digest. */
export interface StepUpStore {
  /** Stores a new record; a record with the same digest already stored is a `step-up.duplicate` error. */
  save(record: StepUpRecord): Promise<void>
  /**
   * Atomically removes and returns the record with this digest, whatever its bindings or expiry: a
   * lookup with the right token always burns it. Of concurrent takes of one digest, exactly one gets it.
   */
  take(digest: string): Promise<StepUpRecord | null>
  /** Deletes records whose `expiresAt` is at or before `now`; returns how many. */
  purgeExpired(now: Date): Promise<number>
}
