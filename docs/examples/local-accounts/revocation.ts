// Revocation: what each setting means, and the administrator's hooks.
import type { LocalAccounts, LocalAccountsOptions } from '@portcullis/core/local-accounts'

export const revocation: LocalAccountsOptions['revocation'] = {
  // Another instance may accept a revoked session, or a token of an account whose epoch moved, for at most
  // this long. 0 is strict mode: every request reads the session and the epoch from the store.
  maxStalenessSeconds: 5,
  maxCachedSessions: 10_000,
  maxCachedAccounts: 10_000,
}

/** A support agent resets a password: every session, refresh family and access token of the account ends. */
export async function adminReset(local: LocalAccounts, accountId: string, temporaryPassword: string) {
  if (!(await local.resetPassword(accountId, temporaryPassword))) throw new Error('no such account')
}

/** A stolen laptop: sign the account out everywhere without changing its password. */
export async function signOutEverywhere(local: LocalAccounts, accountId: string) {
  await local.signOutEverywhere(accountId, 'admin')
}
