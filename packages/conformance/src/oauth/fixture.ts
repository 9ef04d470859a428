import { randomBytes, randomUUID } from 'node:crypto'
import type { AccountStore } from '@portcullis/core/accounts'
import type { MailOutboxStore } from '@portcullis/core/mail'
import { accounts } from '@portcullis/core/oauth'

type OAuthAccountStore = accounts.OAuthAccountStore
type ProviderIdentity = accounts.ProviderIdentity

/**
 * What the suite needs for one case: a provider view of an account store (`accounts.oauth(...)`), the
 * account store itself (`accountStore`: password accounts are made there), and a hook that reads and writes the stored
 * envelopes.
 */
export interface OAuthAccountStoreFixture {
  readonly store: OAuthAccountStore
  readonly accountStore: AccountStore
  readonly inspector: accounts.OAuthVaultInspector
  /**
   * The outbox the store writes the `outbox` entries of `link` and `unlink` into (same storage, same
   * transaction). Without it the store must refuse changes that carry entries.
   */
  readonly outbox?: MailOutboxStore
  dispose?(): Promise<void> | void
}

/** Yields a fresh fixture per case. Stores may share a database: the suite uses unique ids throughout. */
export type OAuthAccountStoreFactory = () => OAuthAccountStoreFixture | Promise<OAuthAccountStoreFixture>

export const NOW = new Date('2031-03-04T05:06:07.000Z')
export const LATER = new Date(NOW.getTime() + 60 * 60 * 1000)
export const ISSUER = 'https://idp.conformance.example/'

export function unique(prefix: string): string {
  return `${prefix}-${randomUUID()}`
}

export function identity(
  store: OAuthAccountStore,
  overrides: Partial<ProviderIdentity> = {},
): ProviderIdentity {
  return { provider: store.provider, issuer: ISSUER, subject: unique('subject'), ...overrides }
}

export function grant(...scopes: string[]): accounts.ProviderGrantInput {
  return { scopes: scopes.length === 0 ? ['openid'] : scopes, expiresAt: LATER }
}

export function tokens(label = 'tokens', scopes: readonly string[] = ['openid']): accounts.ProviderTokenSet {
  return new accounts.ProviderTokenSet({
    accessToken: unique(`access-${label}`),
    refreshToken: unique(`refresh-${label}`),
    idToken: unique(`id-${label}`),
    scopes,
    expiresAt: LATER,
  })
}

/** A fresh account whose one sign-in method is a password. */
export async function account(accountStore: AccountStore): Promise<string> {
  const accountId = unique('account')
  const outcome = await accountStore.createAccount({
    accountId,
    username: `user.${randomBytes(9).toString('hex')}`,
    passwordHash: `$argon2id$v=19$m=19456,t=2,p=1$${randomBytes(24).toString('base64')}`,
    now: NOW,
  })
  if (outcome.outcome !== 'created') throw new Error(`setup: createAccount answered ${outcome.outcome}`)
  return accountId
}

/**
 * An account with a fresh identity of the store's provider: a password account the identity is linked
 * to (two sign-in methods), or with `password: false` one a first sign-in provisioned (the identity is
 * its only method).
 */
export async function linkedAccount(
  store: OAuthAccountStore,
  /** Needed for a password account; a provisioned one (`password: false`) is made by `store` alone. */
  accountStore: AccountStore | undefined,
  options: { password?: boolean; retain?: boolean } = {},
): Promise<{
  accountId: string
  link: accounts.LinkedProviderAccount
  reference: accounts.ProviderTokenReference | null
  tokens: accounts.ProviderTokenSet
}> {
  const retained = tokens('linked')
  const kept = options.retain === false ? {} : { tokens: retained }
  if (options.password === false) {
    const login = await store.login({
      identity: identity(store),
      grant: grant(),
      ...kept,
      provisionUnknown: true,
      now: NOW,
    })
    return { accountId: login.link.accountId, link: login.link, reference: login.tokens, tokens: retained }
  }
  if (accountStore === undefined) throw new Error('setup: a password account needs the account store')
  const accountId = await account(accountStore)
  const outcome = await store.link({
    accountId,
    identity: identity(store),
    grant: grant(),
    ...kept,
    now: NOW,
  })
  return { accountId, link: outcome.link, reference: outcome.tokens, tokens: retained }
}

export { expectCode, rejectionCode } from '../suite/rejections.js'

export function sameTokens(a: accounts.ProviderTokenSet, b: accounts.ProviderTokenSet): boolean {
  return (
    a.accessToken === b.accessToken &&
    a.refreshToken === b.refreshToken &&
    a.idToken === b.idToken &&
    a.expiresAt.getTime() === b.expiresAt.getTime() &&
    a.scopes.join(' ') === b.scopes.join(' ')
  )
}

export function count<T>(values: readonly T[], predicate: (value: T) => boolean): number {
  return values.filter(predicate).length
}

export const Codes = accounts.OAuthAccountErrorCodes
