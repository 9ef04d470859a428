// Revocation: what each setting means, and the administrator's hooks.
import type { LocalAccounts, LocalAccountsOptions } from '@portcullis/core/local-accounts'
import { type PostgresClient, PostgresRevocationNotices } from '@portcullis/postgres'

/** The revocation settings of an instance whose stores are in Postgres. */
export async function revocationOver(database: PostgresClient): Promise<LocalAccountsOptions['revocation']> {
  // One LISTEN connection per instance; `notices.close()` at shutdown. Pass the same notices to ApiKeyService.
  // #region security-epochs-and-revocation-bounds
  const notices = new PostgresRevocationNotices({ client: database })
  await notices.start()
  return {
    // While the listener is up, a revocation on any instance evicts the session or epoch from every
    // instance's cache within moments, so a cached entry is believed up to this safety bound.
    notices,
    safetyTtlSeconds: 300,
    // While the listener is down (or without one): how long a cached entry is still believed. 0 is strict
    // mode: every request reads the session and its account's epoch (one statement with Postgres).
    maxStalenessSeconds: 5,
    // #endregion security-epochs-and-revocation-bounds
    maxCachedSessions: 10_000,
    maxCachedAccounts: 10_000,
  }
}

/** A support agent resets a password: every session, refresh family and access token of the account ends. */
export async function adminReset(local: LocalAccounts, accountId: string, temporaryPassword: string) {
  if (!(await local.resetPassword(accountId, temporaryPassword))) throw new Error('no such account')
}

/** A stolen laptop: sign the account out everywhere without changing its password. */
export async function signOutEverywhere(local: LocalAccounts, accountId: string) {
  await local.signOutEverywhere(accountId, 'admin')
}
