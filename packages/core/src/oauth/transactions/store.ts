import type { OAuthTransaction, OAuthTransactionKey } from './transaction.js'

/**
 * Port: where pending OAuth transactions wait for their callback.
 *
 * - `create` keeps the PKCE verifier and nonce only as protector envelopes (see `sealOAuthTransaction`)
 *   and refuses a second transaction under the same key.
 * - `consume` finds the transaction by the exact key, removes it and returns it in one atomic step, so
 *   two concurrent callbacks cannot both win. It returns `null` for an unknown key, a consumed
 *   transaction, or one with `now >= expiresAt`. A lookup under another key never touches it.
 */
export interface OAuthTransactionStore {
  create(transaction: OAuthTransaction): Promise<void>
  consume(key: OAuthTransactionKey, now: Date): Promise<OAuthTransaction | null>
}
