import { randomBytes } from 'node:crypto'
import type { AccountStore } from '@portcullis/core/accounts'
import type { OAuthGrants, OAuthServerEntry, OAuthServerStore } from '@portcullis/core/authorization-server'
import type { MailOutboxStore } from '@portcullis/core/mail'
import type { RevocationNotice } from '@portcullis/core/revocation'
import { passwordAccount } from '../accounts/fixture.js'
import type { Check } from '../suite/suite.js'

/**
 * What each case of `oauthServerStoreSuite` gets: the store under test (both ports), the account store
 * its grants read their account from (to create accounts, move their epoch, disable and delete them), and
 * the revocation notices the store's instance heard. Stores may share a database with other cases: the
 * suite uses fresh ids everywhere.
 */
export interface OAuthServerStoreFixture {
  readonly store: OAuthServerStore & OAuthGrants
  readonly accounts: AccountStore
  /** Every revocation notice this instance heard since the fixture was made (a notice may come late). */
  heard(): readonly RevocationNotice[]
  /**
   * The outbox the store writes a grant's `outbox` entries into (same storage, same transaction).
   * Without it the store must refuse upserts that carry entries.
   */
  readonly outbox?: MailOutboxStore
  dispose?(): Promise<void> | void
}

/** What the suite hands the factory: the clock the store must read (milliseconds since the epoch). */
export interface OAuthServerStoreFactoryOptions {
  readonly clock: () => number
}

export type OAuthServerStoreFactory = (
  options: OAuthServerStoreFactoryOptions,
) => OAuthServerStoreFixture | Promise<OAuthServerStoreFixture>

/** What a case runs with: the fixture and the clock it moves. */
export interface OAuthServerStoreContext {
  readonly fixture: OAuthServerStoreFixture
  readonly clock: SuiteClock
}

/** The suite's clock: starts at `T0`, moves only when a case sets or advances it. */
export class SuiteClock {
  #now = T0

  readonly read = (): number => this.#now

  advance(milliseconds: number): void {
    this.#now += milliseconds
  }

  get now(): Date {
    return new Date(this.#now)
  }
}

export const T0 = Date.UTC(2031, 2, 4, 5, 6, 7)
export const MINUTE = 60_000
export const HOUR = 60 * MINUTE

/** A fresh entry id (oidc-provider's ids are random base64url). */
export const freshId = (): string => randomBytes(16).toString('base64url')

export const RESOURCE = 'https://mcp.example.com/'

/** A `Grant` entry as oidc-provider saves it: OIDC scope under `openid`, resource scopes by resource. */
export function grantEntry(
  accountId: string,
  clock: SuiteClock,
  options: {
    readonly id?: string
    readonly clientId?: string
    readonly lifetimeMs?: number
    readonly resources?: Readonly<Record<string, string>>
  } = {},
): OAuthServerEntry {
  const id = options.id ?? freshId()
  const lifetime = options.lifetimeMs ?? 14 * 24 * HOUR
  return {
    model: 'Grant',
    id,
    payload: {
      jti: id,
      kind: 'Grant',
      accountId,
      clientId: options.clientId ?? `client-${freshId()}`,
      openid: { scope: 'openid email' },
      resources: options.resources ?? { [RESOURCE]: 'tools:read tools:write' },
      iat: Math.floor(clock.read() / 1000),
      exp: Math.floor((clock.read() + lifetime) / 1000),
    },
    expiresAt: new Date(clock.read() + lifetime),
  }
}

/** A token-like entry (code, access token, refresh token, ...) issued under `grant`. */
export function grantToken(
  model: string,
  grant: OAuthServerEntry,
  clock: SuiteClock,
  lifetimeMs = HOUR,
): OAuthServerEntry {
  const id = freshId()
  return {
    model,
    id,
    payload: {
      jti: id,
      kind: model,
      grantId: grant.id,
      accountId: grant.payload.accountId,
      clientId: grant.payload.clientId,
      scope: 'openid tools:read',
      iat: Math.floor(clock.read() / 1000),
    },
    expiresAt: new Date(clock.read() + lifetimeMs),
  }
}

/** A fresh active account (a password account: one sign-in method); its id. */
export async function freshAccount(fixture: OAuthServerStoreFixture): Promise<string> {
  return (await passwordAccount(fixture.accounts)).accountId
}

/** JSON with object keys sorted at every level: how "equal JSON" is compared (jsonb reorders keys). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    typeof inner === 'object' && inner !== null && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  )
}

export const time = (date: Date | undefined): number | undefined =>
  date instanceof Date ? date.getTime() : date

/** Waits (up to 5 s) until the fixture heard a `grant` notice for `grantId`. */
export async function heardGrant(
  fixture: OAuthServerStoreFixture,
  grantId: string,
  check: Check,
): Promise<void> {
  const deadline = Date.now() + 5_000
  const heard = () => fixture.heard().some((notice) => notice.kind === 'grant' && notice.grantId === grantId)
  while (!heard() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  check(heard(), `no grant notice for ${grantId} within 5 s`)
}
