import type { AuthenticationEvidence } from '../authentication/principal.js'
import { SECURITY_EPOCH_ATTRIBUTE, SESSION_HANDLE_ATTRIBUTE } from './sessions/session-mechanism.js'
import { TOKEN_FAMILY_ATTRIBUTE } from './tokens/access-token-mechanism.js'

export type { LocalSessionView } from './sessions/session-view.js'

/** What the local mechanisms proved on one request (read from `request.security.evidence`). */
export interface LocalCredentials {
  /** The session handle, when the session mechanism verified the request. */
  readonly sessionHandle?: string
  /** The refresh token family, when a local access token verified the request. */
  readonly familyId?: string
  /** The security epoch the verified credential carries. */
  readonly securityEpoch?: number
}

/** What the local mechanisms named `sessionMechanism` and `bearerMechanism` proved, from evidence. */
export function localCredentialsOf(
  evidence: readonly AuthenticationEvidence[],
  sessionMechanism: string | undefined,
  bearerMechanism: string | undefined,
): LocalCredentials {
  const found: { sessionHandle?: string; familyId?: string; securityEpoch?: number } = {}
  for (const item of evidence) {
    const attributes = item.attributes ?? {}
    const epoch = attributes[SECURITY_EPOCH_ATTRIBUTE]
    if (item.mechanism === sessionMechanism && typeof attributes[SESSION_HANDLE_ATTRIBUTE] === 'string') {
      found.sessionHandle = attributes[SESSION_HANDLE_ATTRIBUTE]
      if (typeof epoch === 'number') found.securityEpoch = epoch
    }
    if (item.mechanism === bearerMechanism) {
      if (typeof attributes[TOKEN_FAMILY_ATTRIBUTE] === 'string')
        found.familyId = attributes[TOKEN_FAMILY_ATTRIBUTE]
      if (typeof epoch === 'number') found.securityEpoch = epoch
    }
  }
  return found
}
