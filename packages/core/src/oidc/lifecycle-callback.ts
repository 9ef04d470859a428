import { noticesOf, type SecurityNoticeSource } from '../local-accounts/passwords/security-notices.js'
import type { LinkedProviderAccount } from '../oauth/accounts/records.js'
import type { OAuthTransactionService } from '../oauth/transactions/service.js'
import type { OAuthTransactionStore } from '../oauth/transactions/store.js'
import type { OAuthTransaction } from '../oauth/transactions/transaction.js'
import type { StepUpService } from '../step-up/service.js'
import {
  callbackRejected,
  confirmationRefused,
  OIDCError,
  OIDCErrorCodes,
  OIDCProviderUnavailableError,
} from './errors.js'
import type { CompleteOAuthInput, LocalSession, OAuthCallbackOutcome } from './lifecycle-types.js'
import type { ProviderCallbackResult } from './provider-types.js'
import { checkReauthentication } from './reauthentication.js'
import type { Registration } from './registration.js'

export interface CallbackContext {
  /** Writes the notification of a new link in the store's transaction (see the lifecycle's options). */
  readonly notices: SecurityNoticeSource | undefined
  readonly transactions: OAuthTransactionService
  readonly transactionStore: OAuthTransactionStore | undefined
  readonly stepUp: StepUpService
  readonly now: () => Date
  readonly authTimeSkewSeconds: number
}

const MAX_CALLBACK_LENGTH = 16 * 1024

function callbackParameters(callback: CompleteOAuthInput['callback']): URLSearchParams {
  if (callback instanceof URLSearchParams) return new URLSearchParams(callback)
  if (callback instanceof URL) return new URLSearchParams(callback.search)
  if (typeof callback !== 'string' || callback.length > MAX_CALLBACK_LENGTH) {
    throw callbackRejected('callback-malformed')
  }
  if (/^https?:\/\//i.test(callback)) {
    try {
      return new URL(callback).searchParams
    } catch {
      throw callbackRejected('callback-malformed')
    }
  }
  return new URLSearchParams(callback.startsWith('?') ? callback.slice(1) : callback)
}

function isLocalSession(session: CompleteOAuthInput['session']): session is LocalSession {
  return typeof (session as Partial<LocalSession> | undefined)?.accountId === 'string'
}

/**
 * Puts a consumed transaction back so the same callback can be retried. Only called when the code
 * provably never reached the provider; a failure to restore simply leaves it burned.
 */
async function restore(context: CallbackContext, transaction: OAuthTransaction): Promise<boolean> {
  if (context.transactionStore === undefined) return false
  if (context.now().getTime() >= transaction.expiresAt.getTime()) return false
  try {
    await context.transactionStore.create(transaction)
    return true
  } catch {
    return false
  }
}

/**
 * Completes a callback: consumes the transaction (browser binding, provider, operation and session must
 * match; every failure burns or misses exactly as the transaction service decides), checks the local
 * session and epoch, exchanges the code and verifies the identity through the provider, then applies
 * the transaction's operation.
 */
export async function completeCallback(
  context: CallbackContext,
  registration: Registration,
  input: CompleteOAuthInput,
): Promise<OAuthCallbackOutcome> {
  const parameters = callbackParameters(input.callback)
  const states = parameters.getAll('state')
  if (states.length !== 1) throw callbackRejected('state-missing')
  const state = states[0] as string
  const sessionHandle = input.session?.sessionHandle
  const transaction = await context.transactions.consume({
    state,
    browserBinding: input.browserBinding ?? '',
    provider: registration.name,
    ...(input.expectedOperation === undefined ? {} : { operation: input.expectedOperation }),
    ...(sessionHandle === undefined ? {} : { sessionBinding: sessionHandle }),
  })
  let session: LocalSession | undefined
  if (transaction.operation !== 'login') {
    if (!isLocalSession(input.session) || input.session.accountId !== transaction.accountId) {
      throw confirmationRefused('account-mismatch')
    }
    if (input.session.securityEpoch !== transaction.securityEpoch) throw confirmationRefused('epoch-changed')
    session = input.session
  }
  let result: ProviderCallbackResult
  try {
    result = await registration.provider.completeAuthorization({
      parameters,
      transaction,
      state,
      now: context.now(),
    })
  } catch (error) {
    if (error instanceof OIDCProviderUnavailableError && error.retryable) {
      const restored = await restore(context, transaction)
      throw new OIDCProviderUnavailableError(restored, { reason: error.reason, cause: error })
    }
    throw error
  }
  if (result.identity.provider !== registration.name) throw callbackRejected('identity-provider')
  return applyOperation(context, registration, transaction, session, result)
}

async function applyOperation(
  context: CallbackContext,
  registration: Registration,
  transaction: OAuthTransaction,
  session: LocalSession | undefined,
  result: ProviderCallbackResult,
): Promise<OAuthCallbackOutcome> {
  const now = context.now()
  const { identity } = result
  const grant = { scopes: result.grantedScopes, expiresAt: result.tokens.expiresAt }
  const tokens = registration.retainTokens ? { tokens: result.tokens } : {}
  const common = { provider: registration.name, returnTo: transaction.returnTo }
  switch (transaction.operation) {
    case 'login': {
      const outcome = await registration.accounts.login({
        identity,
        grant,
        ...tokens,
        provisionUnknown: registration.provisionUnknown,
        now,
      })
      return {
        ...common,
        operation: 'login',
        accountId: outcome.link.accountId,
        providerAccountId: outcome.link.providerAccountId,
        provisioned: outcome.provisioned,
        identity,
        link: outcome.link,
      }
    }
    case 'link': {
      const accountId = transaction.accountId as string
      // Written by the store only when the link is new (not for a relink or a refused link).
      const change = { type: 'identity-linked', provider: registration.name } as const
      const notice = await noticesOf(context.notices, accountId, change)
      const outcome = await registration.accounts.link({
        accountId,
        identity,
        grant,
        ...tokens,
        now,
        ...notice,
      })
      return {
        ...common,
        operation: 'link',
        status: outcome.status,
        accountId,
        providerAccountId: outcome.link.providerAccountId,
        identity,
        link: outcome.link,
      }
    }
    case 'scope-upgrade': {
      const accountId = transaction.accountId as string
      const link = await linkedAs(registration, transaction)
      if (link.issuer !== identity.issuer || link.subject !== identity.subject) {
        throw confirmationRefused('identity-mismatch')
      }
      // Only the scopes this upgrade added must be granted; base scopes follow what the provider says.
      const missing = transaction.requestedScopes.filter(
        (scope) =>
          !registration.scopes.includes(scope) &&
          !link.grant.scopes.includes(scope) &&
          !result.grantedScopes.includes(scope),
      )
      if (missing.length > 0) {
        throw new OIDCError(
          OIDCErrorCodes.scopesNotGranted,
          'the provider did not grant every requested scope',
          {
            reason: 'partial-consent',
          },
        )
      }
      const outcome = await registration.accounts.upgradeScopes({
        accountId,
        providerAccountId: link.providerAccountId,
        identity,
        grant,
        ...tokens,
        now,
      })
      return {
        ...common,
        operation: 'scope-upgrade',
        accountId,
        providerAccountId: outcome.link.providerAccountId,
        scopes: outcome.link.grant.scopes,
      }
    }
    case 'revalidate':
    case 'reauthenticate':
      return confirm(context, registration, transaction, session as LocalSession, result)
  }
}

/** The account's current link must still be the one recorded at begin. */
async function linkedAs(
  registration: Registration,
  transaction: OAuthTransaction,
): Promise<LinkedProviderAccount> {
  const link = await registration.accounts.resolveLink({
    accountId: transaction.accountId as string,
    provider: registration.name,
  })
  if (link === null || link.providerAccountId !== transaction.providerAccountId) {
    throw confirmationRefused('link-changed')
  }
  return link
}

/** Revalidate and reauthenticate: the exact linked identity, then (reauthenticate) freshness, ACR, AMR. */
async function confirm(
  context: CallbackContext,
  registration: Registration,
  transaction: OAuthTransaction,
  session: LocalSession,
  result: ProviderCallbackResult,
): Promise<OAuthCallbackOutcome> {
  const { identity } = result
  const link = await linkedAs(registration, transaction)
  if (
    link.issuer !== identity.issuer ||
    link.subject !== identity.subject ||
    link.provider !== identity.provider
  ) {
    throw confirmationRefused('identity-mismatch')
  }
  const common = {
    provider: registration.name,
    returnTo: transaction.returnTo,
    accountId: session.accountId,
    providerAccountId: link.providerAccountId,
  }
  if (transaction.operation === 'revalidate') return { ...common, operation: 'revalidate' }
  const purpose = transaction.stepUpPurpose as string
  const requirement = registration.reauthentication.get(purpose)
  if (requirement === undefined || registration.provider.kind !== 'oidc') {
    throw confirmationRefused('purpose-not-configured')
  }
  const now = context.now()
  checkReauthentication(identity, requirement, {
    startedAt: transaction.createdAt,
    now,
    skewSeconds: context.authTimeSkewSeconds,
  })
  // The check above allowed a small skew; the step-up service allows none, so clamp into its window.
  const authTime = (identity.authTime as Date).getTime()
  const oldest = now.getTime() - context.stepUp.ttlSeconds * 1000
  const authenticatedAt = new Date(Math.min(now.getTime(), Math.max(authTime, oldest)))
  const credential = await context.stepUp.issue({
    accountId: session.accountId,
    purpose,
    securityEpoch: session.securityEpoch,
    sessionBinding: session.sessionHandle,
    authenticatedAt,
  })
  return { ...common, operation: 'reauthenticate', purpose, credential }
}
