// Using retained tokens: refresh when they are about to expire, revoke on request.
import { oauthAccounts, store } from './wiring.js'

/** An access token valid for at least another minute, or null when the user must authorize again. */
// #region refresh
export async function providerAccessToken(providerAccountId: string): Promise<string | null> {
  const stored = await store.getTokens(providerAccountId)
  if (stored === null) return null
  if (stored.tokens.expiresAt.getTime() - Date.now() > 60_000) return stored.tokens.accessToken
  // Concurrent callers share one provider call; another instance's refresh is picked up via the CAS.
  const outcome = await oauthAccounts.refresh(providerAccountId)
  return outcome.status === 'refreshed' ? outcome.tokens.tokens.accessToken : null
}
// #endregion refresh

/** Revocation: 204 when done upstream, 202 when it failed upstream and was staged for the drain job. */
export async function revokeProviderTokens(providerAccountId: string): Promise<number> {
  const outcome = await oauthAccounts.revoke(providerAccountId)
  switch (outcome.status) {
    case 'revoked':
    case 'nothing-to-revoke':
      return 204
    case 'revocation-pending':
      return 202
  }
}
