// Step-up: a one-use credential issued after fresh authentication and consumed by the route that
// needs it. The session binding is a stable session value (a session id or token `jti`).
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'

export const stepUp = new StepUpService({ store: new MemoryStepUpStore(), ttlSeconds: 300 })

export interface Session {
  readonly id: string
  readonly accountId: string
  /** Raised when the password changes; old credentials stop working. */
  readonly securityEpoch: number
}

/** After the user re-authenticated: the JSON answer carries the token exactly once. */
export async function issueForUnlink(session: Session) {
  const credential = await stepUp.issue({
    accountId: session.accountId,
    purpose: 'oauth-unlink',
    securityEpoch: session.securityEpoch,
    sessionBinding: session.id,
  })
  return {
    token: credential.reveal(),
    purpose: credential.purpose,
    expiresAt: credential.expiresAt.toISOString(),
  }
}

/** In the protected route (or a `requiresStepUp('oauth-unlink')` guard): 401 or 503, else proceed. */
// #region step-up-lifecycle
export async function requireUnlinkStepUp(
  session: Session,
  presentedToken: string,
): Promise<200 | 401 | 503> {
  const result = await stepUp.consume({
    token: presentedToken,
    accountId: session.accountId,
    purpose: 'oauth-unlink',
    securityEpoch: session.securityEpoch,
    sessionBinding: session.id,
  })
  switch (result.kind) {
    case 'consumed':
      return 200
    case 'rejected':
      return 401 // result.reason is for logs only
    case 'unavailable':
      return 503
  }
}
// #endregion step-up-lifecycle
