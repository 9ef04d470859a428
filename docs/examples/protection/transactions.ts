// OAuth transaction state: start before redirecting to the provider, consume in the callback.
import { randomBytes } from 'node:crypto'
import { transactions } from '@portcullis/core/oauth'
import { protector } from './keys.js'

const redirects = new transactions.OAuthRedirectPolicy({
  callbackUris: { google: ['https://app.example/auth/oauth/google/callback'] },
  returnTo: ['/', '/settings/security'],
})

export const oauthTransactions = new transactions.OAuthTransactionService({
  store: new transactions.MemoryOAuthTransactionStore({ protector, capacity: 10_000 }),
  // HMAC key for the state, browser-binding and session digests; from your secret store in production.
  pepper: randomBytes(32),
  redirects,
  lifetimeSeconds: 600,
})

export async function beginLogin(bindingCookie: string | undefined) {
  // #region oauth-transactions
  const started = await oauthTransactions.start({
    provider: 'google',
    operation: 'login',
    redirectUri: 'https://app.example/auth/oauth/google/callback',
    returnTo: '/settings/security',
    scopes: ['openid', 'email'],
    browserBinding: bindingCookie,
  })
  // #endregion oauth-transactions
  return {
    // Set when a fresh binding was minted (no cookie, or a garbage one).
    setBindingCookie: started.bindingReused ? null : started.browserBinding,
    authorizationParameters: {
      state: started.state,
      code_challenge: started.pkceChallenge,
      code_challenge_method: started.pkceChallengeMethod,
      ...(started.nonce === null ? {} : { nonce: started.nonce }),
    },
  }
}

export async function finishLogin(state: string, bindingCookie: string) {
  try {
    const tx = await oauthTransactions.consume({
      state,
      browserBinding: bindingCookie,
      provider: 'google',
      operation: 'login',
    })
    return { status: 200, verifier: tx.pkceVerifier, nonce: tx.nonce, returnTo: tx.returnTo }
  } catch (error) {
    // OAuthTransactionInvalidError -> 401, OAuthTransactionUnavailableError -> 503.
    if (error instanceof transactions.OAuthTransactionUnavailableError) return { status: 503 }
    if (error instanceof transactions.OAuthTransactionInvalidError) return { status: 401 }
    throw error
  }
}
