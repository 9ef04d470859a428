import type { Impersonator, Principal } from '../authentication/principal.js'
import type { LocalAccounts } from '../local-accounts/local-accounts.js'
import type { LocalRequestInfo } from '../local-accounts/sign-in.js'
import { ImpersonationError, ImpersonationErrorCodes } from './errors.js'

/**
 * The acts Portcullis and the reference application refuse during an impersonation, because what they
 * make would outlive its bound or reach beyond the account: a credential of the account's own (an API
 * key issued or rotated), a grant to a client (an OAuth or MCP app connected), a membership for
 * someone else (an invitation sent, a join request approved). An application names its own acts
 * besides, in the same `noun.verb` form.
 */
export const ImpersonationRefusedActs = Object.freeze({
  apiKeyIssue: 'api_key.issue',
  apiKeyRotate: 'api_key.rotate',
  clientConsent: 'oauth.consent',
  invitation: 'organization.invite',
  joinApproval: 'organization.join_approve',
} as const)

/** An act: a lower-case noun and verb joined by a dot (`api_key.issue`), each at most 31 characters. */
const ACT = /^[a-z][a-z0-9_]{0,30}\.[a-z][a-z0-9_]{0,30}$/

/** The act, checked: a name that is not `noun.verb` is the caller's mistake (`impersonation.invalid_input`). */
export function requireAct(act: unknown): string {
  if (typeof act !== 'string' || !ACT.test(act)) {
    throw new ImpersonationError(ImpersonationErrorCodes.invalidInput, 'act must be a noun.verb name')
  }
  return act
}

export interface ImpersonationRefusal {
  /** The account acted as. */
  readonly accountId: string
  /** The administrator and the impersonation, as the verified principal carries them. */
  readonly impersonator: Impersonator
  readonly act: string
  readonly request?: LocalRequestInfo
}

/** Records `impersonation.refused`, naming the administrator; returns the error to answer with (403). */
export function recordRefusal(local: LocalAccounts, refusal: ImpersonationRefusal): ImpersonationError {
  requireAct(refusal.act)
  const clientAddress = local.clientAddress(refusal.request)
  local.emit('impersonation.refused', {
    accountId: refusal.accountId,
    actorId: refusal.impersonator.accountId,
    impersonationId: refusal.impersonator.impersonationId,
    act: refusal.act,
    ...(clientAddress === undefined ? {} : { clientAddress }),
  })
  return new ImpersonationError(
    ImpersonationErrorCodes.refused,
    `an impersonation cannot ${refusal.act.replace(/[._]/g, ' ')}`,
  )
}

/** What `Impersonations.refuse` is asked: the request's verified principal and the act it would do. */
export interface ImpersonationRefusalRequest {
  readonly principal: Principal | null | undefined
  readonly act: string
  readonly request?: LocalRequestInfo
}

/** Throws (and records) the refusal when the principal is an impersonation; checks `act` either way. */
export function refuseImpersonated(local: LocalAccounts, request: ImpersonationRefusalRequest): void {
  requireAct(request.act)
  const impersonator = request.principal?.impersonator
  if (request.principal == null || impersonator === undefined) return
  throw recordRefusal(local, {
    accountId: request.principal.id,
    impersonator,
    act: request.act,
    ...(request.request === undefined ? {} : { request: request.request }),
  })
}
