import type { LinkedProviderAccount } from '../oauth/accounts/records.js'
import { invalidRequest, OIDCError, OIDCErrorCodes } from './errors.js'
import { type BeginOAuthInput, OAUTH_STEP_UP_PURPOSES } from './lifecycle-types.js'
import type { Registration } from './registration.js'

/** What a round trip of one operation asks of the transaction and of the provider's authorization URL. */
export interface BeginPlan {
  readonly scopes: readonly string[]
  /** Stored with the transaction, checked on the callback. */
  readonly extra: {
    accountId?: string
    securityEpoch?: number
    sessionBinding?: string
    providerAccountId?: string
    stepUpPurpose?: string
    maxAuthenticationAge?: number
  }
  readonly authorization: { maxAge?: number; prompt?: 'login'; acrValues?: readonly string[] }
  /** The step-up credential `begin` spends once the request checks passed (link, scope upgrade). */
  readonly stepUpPurpose: string | undefined
}

/**
 * The parameters of a round trip per operation: a link forces a fresh login at an OIDC provider, a scope
 * upgrade adds only allow-listed scopes not granted yet, a revalidation and a reauthentication name the
 * linked provider account, and a reauthentication carries its purpose's `max_age` and ACR requirement.
 */
export async function planBegin(
  registration: Registration,
  input: BeginOAuthInput,
  linkOf: (accountId: string) => Promise<LinkedProviderAccount>,
): Promise<BeginPlan> {
  const provider = registration.provider
  let scopes: readonly string[] = registration.scopes
  const extra: BeginPlan['extra'] = {}
  const authorization: BeginPlan['authorization'] = {}
  let stepUpPurpose: string | undefined
  if (input.operation !== 'login') {
    extra.accountId = input.session.accountId
    extra.securityEpoch = input.session.securityEpoch
    extra.sessionBinding = input.session.sessionHandle
  } else if (input.session !== undefined) {
    extra.sessionBinding = input.session.sessionHandle
  }
  switch (input.operation) {
    case 'login':
      break
    case 'link':
      stepUpPurpose = OAUTH_STEP_UP_PURPOSES.link
      // The identity to link is the one the user proves now, never whichever session the browser still
      // has at the provider (another person's, on a shared browser).
      if (provider.kind === 'oidc') authorization.prompt = 'login'
      break
    case 'scope-upgrade': {
      const link = await linkOf(input.session.accountId)
      const requested = [...new Set(input.scopes ?? [])]
      if (requested.length === 0 || requested.some((scope) => !registration.allowedScopes.has(scope))) {
        throw invalidRequest('scopes-not-allowed')
      }
      if (requested.every((scope) => link.grant.scopes.includes(scope)))
        throw invalidRequest('nothing-to-upgrade')
      stepUpPurpose = OAUTH_STEP_UP_PURPOSES.scopeUpgrade
      scopes = [...new Set([...registration.scopes, ...link.grant.scopes, ...requested])]
      extra.providerAccountId = link.providerAccountId
      break
    }
    case 'revalidate':
      extra.providerAccountId = (await linkOf(input.session.accountId)).providerAccountId
      break
    case 'reauthenticate': {
      const requirement = registration.reauthentication.get(input.purpose)
      if (provider.kind !== 'oidc' || requirement === undefined) {
        throw new OIDCError(
          OIDCErrorCodes.reauthenticationUnavailable,
          'reauthentication is not configured for this provider and purpose',
        )
      }
      extra.providerAccountId = (await linkOf(input.session.accountId)).providerAccountId
      extra.stepUpPurpose = input.purpose
      extra.maxAuthenticationAge = requirement.maxAge
      authorization.maxAge = requirement.maxAge
      if (requirement.maxAge === 0) authorization.prompt = 'login'
      if (requirement.acrValues.length > 0) authorization.acrValues = requirement.acrValues
      break
    }
    default:
      throw invalidRequest('operation')
  }
  return { scopes, extra, authorization, stepUpPurpose }
}
