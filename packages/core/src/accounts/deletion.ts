import { ConfigurationError } from '../errors/portcullis-error.js'
import type { WithSecurityLog } from '../security-log/in-transaction.js'
import { AccountError, AccountErrorCodes } from './errors.js'
import type { AccountStore } from './port.js'

/** Hands an account's retained provider tokens to the revocation retry queue (`OAuthLifecycleService`). */
export interface ProviderTokenRevocations {
  /**
   * Moves every retained provider token of the account, for every provider, into an encrypted
   * revocation retry (revoked at the provider by `drainRevocationRetries`), or discards it where the
   * provider cannot revoke. How many were staged.
   */
  stageAccountRevocations(accountId: string): Promise<number>
}

/** Rounds of "stage, then delete" before a deletion racing new provider tokens gives up. */
const ATTEMPTS = 3

/**
 * Stages the revocation of the account's provider tokens, then deletes the account in one store
 * transaction (with `change.securityLog`, written only by the round that deletes). The store refuses while tokens are retained, so tokens a concurrent sign-in retained after
 * staging are staged in the next round instead of being deleted unrevoked. How many were staged.
 */
export async function deleteWithStagedRevocations(
  accounts: AccountStore,
  providerTokens: ProviderTokenRevocations | undefined,
  accountId: string,
  change: WithSecurityLog = {},
): Promise<number> {
  let staged = 0
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    if (providerTokens !== undefined) staged += await providerTokens.stageAccountRevocations(accountId)
    const outcome = await accounts.deleteAccount({ ...change, accountId, now: new Date() })
    if (outcome.outcome === 'deleted') return staged
    if (outcome.outcome === 'not-found') {
      throw new AccountError(AccountErrorCodes.notFound, 'the account does not exist')
    }
    if (outcome.outcome === 'last-owner') {
      throw new AccountError(
        AccountErrorCodes.lastOwner,
        'the account is the only owner of an organization that has other members',
      )
    }
    if (providerTokens === undefined) {
      throw new ConfigurationError(
        'account.provider_tokens_required',
        'the account retains provider tokens: pass providerTokens (the OAuthLifecycleService) to AccountService',
      )
    }
  }
  throw new AccountError(AccountErrorCodes.deletionRaced, 'provider tokens kept arriving during the deletion')
}
