import type { OutboxEntry } from '../mail/outbox.js'
import type { WithSecurityLog } from '../security-log/in-transaction.js'
/**
 * The persistence of the OAuth 2.1 authorization server (`@portcullis/authorization-server`, built on
 * oidc-provider) in the shape of that provider's adapter: entries of a few models (`AuthorizationCode`,
 * `RefreshToken`, `Grant`, `Interaction`, `Session`, `Client`, ...), each a JSON payload with an expiry.
 *
 * Rules every implementation keeps (the conformance suite `oauthServerStoreSuite` checks them):
 * - an entry past its `expiresAt` is never returned;
 * - `consume` is atomic: of any number of concurrent calls for one entry, exactly one answers `consumed`;
 * - `rotate` consumes one entry and saves its replacement in one transaction: the replacement exists only
 *   when the answer is `consumed`, and a rotation that fails (an error, any answer but `consumed`) leaves
 *   the consumed entry as it was, so a client's retry after a failed save is not taken for a reuse;
 * - `revokeGrant` removes every entry carrying that `grantId` (the grant itself included) and sends a
 *   `grant` revocation notice in the same transaction, so every instance drops what it cached of it;
 * - a `Grant` entry remembers its account's security epoch when saved; the grant is active only while the
 *   account exists, is `active`, and still has that epoch (sign-out everywhere, disabling, a password
 *   change and deletion end every grant of the account without touching its rows);
 * - every operation is one transaction; payloads are stored as given and returned as equal JSON.
 */
export interface OAuthServerEntry {
  /** The provider's model name (`AuthorizationCode`, `RefreshToken`, `Grant`, ...). */
  readonly model: string
  readonly id: string
  /**
   * The provider's payload. The store reads `grantId`, `uid`, `userCode` and (for `Grant`) `accountId`
   * and `clientId` from it to index the entry; everything else is opaque.
   */
  readonly payload: Readonly<Record<string, unknown>>
  /** When the entry stops being returned; undefined for entries that do not expire (static clients). */
  readonly expiresAt: Date | undefined
}

export interface StoredOAuthServerEntry extends OAuthServerEntry {
  /** Set once `consume` succeeded for the entry. */
  readonly consumedAt: Date | undefined
}

/** How `find` looks an entry up: by id, or by the interaction `uid` / device `userCode` in its payload. */
export type OAuthServerEntryKey =
  | { readonly id: string }
  | { readonly uid: string }
  | { readonly userCode: string }

/** What an `upsert` writes with its entry, in the same transaction. */
export interface OAuthServerChange {
  /**
   * Security notifications of the change (`SecurityNotifier.entries`): only with a `Grant` entry (a client
   * the person just connected), each of the grant's account, written only when the grant is saved.
   */
  readonly outbox?: readonly OutboxEntry[] | undefined
}

/** What `consume` did: the caller proceeds only on `consumed`. */
export type OAuthServerConsumeOutcome = 'consumed' | 'already-consumed' | 'missing'

/** Port: the authorization server's entries (oidc-provider's adapter interface, one method per operation). */
export interface OAuthServerStore {
  /**
   * Inserts or replaces the entry of this model and id (a replaced entry keeps its `consumedAt`), with
   * `change.outbox` (a `Grant`'s connection notification) in the same transaction.
   */
  upsert(entry: OAuthServerEntry, change?: OAuthServerChange): Promise<void>
  find(model: string, key: OAuthServerEntryKey): Promise<StoredOAuthServerEntry | undefined>
  /** Marks the entry consumed, atomically; `already-consumed` when another call got there first. */
  consume(model: string, id: string): Promise<OAuthServerConsumeOutcome>
  /**
   * Consumes the entry of `model` and `id` (as `consume`) and, only when that answers `consumed`, saves
   * `replacement` (as `upsert`), both in one transaction: a refresh token's rotation. When saving the
   * replacement fails, the consumption is rolled back and the call throws.
   */
  rotate(model: string, id: string, replacement: OAuthServerEntry): Promise<OAuthServerConsumeOutcome>
  destroy(model: string, id: string): Promise<void>
  /** Removes every entry of the grant and notifies every instance; a no-op (still notified) when none. */
  revokeGrant(grantId: string): Promise<void>
}

/** One grant as the "Connected apps" page lists it. */
export interface OAuthGrantSummary {
  readonly grantId: string
  readonly accountId: string
  readonly clientId: string
  /** The scopes granted (the union of the grant's OIDC scope and every resource's scope), sorted. */
  readonly scopes: readonly string[]
  /** The resource indicators the grant covers, sorted. */
  readonly resources: readonly string[]
  readonly createdAt: Date
  /** The last time a token was issued under the grant (a code redeemed, a refresh). */
  readonly lastUsedAt: Date | undefined
  readonly expiresAt: Date | undefined
  /**
   * The client's name as the consent page showed it, kept with the grant (its payload's
   * `consentedClient.name`), so the listing needs no lookup of the client; undefined when not kept.
   */
  readonly clientName: string | undefined
  /** The host the consent page showed for the client (`consentedClient.host`); undefined when not kept. */
  readonly clientHost: string | undefined
}

/** What the resource side needs to know of a grant: it is active, for this account and client. */
export interface OAuthGrantStatus {
  readonly grantId: string
  readonly accountId: string
  readonly clientId: string
}

/** Port: the grants of accounts, for the resource side and the "Connected apps" page. */
export interface OAuthGrants {
  /** The account's active grants, newest first. */
  list(accountId: string): Promise<readonly OAuthGrantSummary[]>
  /**
   * Ends one of the account's grants (as `revokeGrant`); false when the account has no such grant.
   * `change.securityLog` entries are written with it, only when it ends (stores with
   * `securityLogInTransaction`).
   */
  disconnect(accountId: string, grantId: string, change?: WithSecurityLog): Promise<boolean>
  /** The grant when it is active (see the store's rules), else undefined. One indexed read. */
  status(grantId: string): Promise<OAuthGrantStatus | undefined>
}
