import { randomUUID } from 'node:crypto'
import { accounts } from '@portcullis/core/oauth'
import type { Check } from '../suite/suite.js'

type OAuthAccountStore = accounts.OAuthAccountStore
type ProviderIdentity = accounts.ProviderIdentity

/** What the suite needs for one case: a store, and a hook that reads and writes its stored envelopes. */
export interface OAuthAccountStoreFixture {
  readonly store: OAuthAccountStore
  readonly inspector: accounts.OAuthVaultInspector
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

/** Registers a fresh local account with `loginMethods` non-provider methods (a password, passkeys). */
export async function account(store: OAuthAccountStore, loginMethods = 1): Promise<string> {
  const accountId = unique('account')
  await store.registerAccount({ accountId, loginMethods })
  return accountId
}

/** Registers an account with one extra login method and links a fresh identity to it. */
export async function linkedAccount(
  store: OAuthAccountStore,
  options: { loginMethods?: number; retain?: boolean } = {},
): Promise<{
  accountId: string
  link: accounts.LinkedProviderAccount
  reference: accounts.ProviderTokenReference | null
  tokens: accounts.ProviderTokenSet
}> {
  const accountId = await account(store, options.loginMethods ?? 1)
  const retained = tokens('linked')
  const outcome = await store.link({
    accountId,
    identity: identity(store),
    grant: grant(),
    ...(options.retain === false ? {} : { tokens: retained }),
    now: NOW,
  })
  return { accountId, link: outcome.link, reference: outcome.tokens, tokens: retained }
}

/** The error `code` a promise rejects with, or `undefined` when it resolves. */
export async function rejectionCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise
    return undefined
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code
    return typeof code === 'string' ? code : `<${String(error)}>`
  }
}

export async function expectCode(
  check: Check,
  promise: Promise<unknown>,
  code: string,
  what: string,
): Promise<void> {
  const actual = await rejectionCode(promise)
  check(actual === code, `${what}: expected ${code}, got ${actual ?? 'success'}`)
}

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
