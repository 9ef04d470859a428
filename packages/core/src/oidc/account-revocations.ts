import type { RevocationTokenType } from '../oauth/accounts/records.js'
import type { Registration } from './registration.js'

const ATTEMPTS = 3

/**
 * Hands the account's retained tokens at one provider to the revocation retry queue (a compare-and-swap
 * on the vault version: tokens a concurrent refresh rotated are staged in the next round). A provider
 * without a revocation endpoint cannot be told anything: its tokens are discarded. 1 when staged.
 */
export async function stageRevocation(
  registration: Registration,
  accountId: string,
  now: Date,
): Promise<number> {
  const store = registration.accounts
  const link = await store.resolveLink({ accountId, provider: registration.name })
  if (link === null) return 0
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const stored = await store.getTokens(link.providerAccountId)
    if (stored === null) return 0
    const expectedVersion = stored.reference.version
    if (!registration.provider.supportsRevocation) {
      if (await store.discardTokens({ providerAccountId: link.providerAccountId, expectedVersion })) return 0
      continue
    }
    const failedTokenTypes: RevocationTokenType[] =
      stored.tokens.refreshToken === null ? ['access_token'] : ['refresh_token', 'access_token']
    const staged = await store.stageRevocationRetry({
      providerAccountId: link.providerAccountId,
      expectedVersion,
      tokens: stored.tokens,
      failedTokenTypes,
      occurredAt: now,
    })
    if (staged !== null) return 1
  }
  // Still moving: the account deletion refuses while tokens are retained and asks again.
  return 0
}
