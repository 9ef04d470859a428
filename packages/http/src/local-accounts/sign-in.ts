import type { AuthenticationEvidence } from '@portcullis/core/authentication'
import type {
  EpochBumpReason,
  LocalAccounts,
  LocalRequestInfo,
  LocalSignIn,
  LocalTransport,
  ProviderSession,
  SessionSignIn,
  TokenSignIn,
} from '@portcullis/core/local-accounts'
import { HttpProblem } from '../problem/problem.js'

/** What establishing or rotating a sign-in reads from the request. */
export interface SignInRequest {
  readonly cookieHeader: string | undefined
  readonly requestInfo: LocalRequestInfo
}

/** What `establishSignIn` is given. */
export interface EstablishSignInInput {
  readonly accountId: string
  readonly transport?: LocalTransport
  /** The OAuth sign-in's `identity`, so a back-channel logout of that provider session ends it. */
  readonly providerSession?: ProviderSession
  /** How the account authenticated (RFC 8176 values), carried by the access tokens of the sign-in. */
  readonly amr?: readonly string[]
}

/**
 * Establishes a local sign-in for an account authenticated some other way (OAuth callbacks, passkeys): a session
 * (its `Set-Cookie` replaces the one the request came with) or a token pair (the caller sends it).
 */
export function establishSignIn(
  local: LocalAccounts,
  request: SignInRequest,
  input: EstablishSignInInput,
): Promise<LocalSignIn> {
  return local.establishSignIn({
    accountId: input.accountId,
    ...(input.transport === undefined ? {} : { transport: input.transport }),
    ...(input.providerSession === undefined ? {} : { providerSession: input.providerSession }),
    ...(input.amr === undefined ? {} : { amr: input.amr }),
    replacesSessionId: local.csrf.sessionIdFrom(request.cookieHeader),
    request: request.requestInfo,
  })
}

/** A new session id for the request's session (after a privilege change); 401 without a session. */
export async function rotateSession(local: LocalAccounts, request: SignInRequest): Promise<SessionSignIn> {
  const sessionId = local.csrf.sessionIdFrom(request.cookieHeader)
  if (sessionId === undefined) {
    throw new HttpProblem({ status: 401, code: 'authentication.required', detail: 'Authentication required' })
  }
  return local.rotateSession(sessionId, request.requestInfo)
}

/** An account's security epoch that moved outside the local-account routes (an OAuth unlink). */
export interface EpochChange {
  readonly accountId: string
  readonly securityEpoch: number
  readonly reason: EpochBumpReason
}

/**
 * After the account's security epoch moved outside the local-account routes: this instance believes the
 * new epoch at once, every other session and token family of the account ends, and the caller gets a
 * fresh session (its `Set-Cookie` to send) or token pair.
 */
export async function renewSignIn(
  local: LocalAccounts,
  request: SignInRequest & { readonly evidence: readonly AuthenticationEvidence[] },
  change: EpochChange,
): Promise<{ readonly session?: SessionSignIn; readonly tokens?: TokenSignIn }> {
  await local.epochMoved({ ...change, clientAddress: local.clientAddress(request.requestInfo) })
  return local.renewSignIn({
    accountId: change.accountId,
    securityEpoch: change.securityEpoch,
    credentials: local.credentialsOf(request.evidence),
    request: request.requestInfo,
  })
}
