// Sign-in, linking and unlinking after a verified provider callback. The identity comes from the
// provider's verified ID token; only its (provider, issuer, subject) triple is used for matching.
import { accounts } from '@portcullis/core/oauth'
import { accountStore, store } from './wiring.js'

export interface VerifiedCallback {
  readonly identity: accounts.ProviderIdentity
  readonly grantedScopes: readonly string[]
  readonly tokens: accounts.ProviderTokenSet
}

/** Sign-in: a known identity signs in; an unknown one gets a new account (provisioning on). */
export async function signIn(
  callback: VerifiedCallback,
): Promise<{ accountId: string; isNewAccount: boolean }> {
  const outcome = await store.login({
    identity: callback.identity,
    grant: { scopes: callback.grantedScopes, expiresAt: callback.tokens.expiresAt },
    tokens: callback.tokens, // omit to keep no tokens (and discard any kept before)
    provisionUnknown: true,
    now: new Date(),
  })
  return { accountId: outcome.link.accountId, isNewAccount: outcome.provisioned }
}

/** Linking from a signed-in session (after a step-up for `oauth-link`): 409 on either conflict. */
// #region linking-rules
export async function linkProvider(accountId: string, callback: VerifiedCallback): Promise<number> {
  try {
    await store.link({
      accountId,
      identity: callback.identity,
      grant: { scopes: callback.grantedScopes },
      tokens: callback.tokens,
      now: new Date(),
    })
    return 200
  } catch (error) {
    if (error instanceof accounts.AccountLinkError) {
      // error.conflict: 'identity-linked-elsewhere' | 'provider-already-linked'
      return 409
    }
    throw error
  }
}
// #endregion linking-rules

/** Unlinking never removes the last way to sign in. */
export async function unlinkProvider(accountId: string): Promise<number> {
  const link = await store.resolveLink({ accountId, provider: store.provider })
  if (link === null) return 404
  const outcome = await store.unlink({
    accountId,
    provider: store.provider,
    providerAccountId: link.providerAccountId,
  })
  switch (outcome.status) {
    case 'unlinked':
      return 204
    case 'final-method':
      return 409 // add a password or another provider first
    case 'not-found':
      return 404
  }
}

/** The password is a sign-in method like any identity: removing the last one is refused too. */
export async function removePassword(accountId: string): Promise<200 | 404 | 409> {
  const outcome = await accountStore.removePassword({ accountId, now: new Date() })
  if (outcome.outcome === 'final-method') return 409 // link a provider first
  return outcome.outcome === 'removed' ? 200 : 404
}
