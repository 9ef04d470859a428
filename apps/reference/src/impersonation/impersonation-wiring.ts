import type { AuthorizationResolver } from '@portcullis/core/authorization'
import { AuthorizationSnapshot } from '@portcullis/core/authorization'
import {
  DEFAULT_IMPERSONATION_CAPABILITY,
  type ImpersonationEvents,
  Impersonations,
} from '@portcullis/core/impersonation'
import type { LocalAccounts } from '@portcullis/core/local-accounts'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import type { StepUpService } from '@portcullis/core/step-up'

/** The demo directory's role of administrators: it brings the capability to impersonate. */
export const IMPERSONATING_ROLE = 'admin'
/** How long an impersonation lasts at most here: 30 minutes. */
export const IMPERSONATION_TTL_SECONDS = 1800

/**
 * The app's authorization resolver with `accounts.impersonate` for holders of the `admin` role. Both
 * the security instance and the impersonations use it: an administrator's own snapshot says they may
 * impersonate, and the same capability makes an account an administrator nobody impersonates.
 */
export function withImpersonationCapability(resolver: AuthorizationResolver): AuthorizationResolver {
  return async (request) => {
    const answer = await resolver(request)
    if (answer === null) return null
    const snapshot = AuthorizationSnapshot.from(answer)
    if (!snapshot.hasRole(IMPERSONATING_ROLE)) return snapshot
    return AuthorizationSnapshot.from({
      ...snapshot.toJSON(),
      capabilities: [...snapshot.capabilities, DEFAULT_IMPERSONATION_CAPABILITY],
    })
  }
}

export interface ImpersonationWiring {
  readonly local: LocalAccounts
  readonly stepUp: StepUpService
  readonly protector: OAuthTransactionProtector
  /** The resolver `withImpersonationCapability` returned (the security instance's too). */
  readonly authorizationResolver: AuthorizationResolver
  /** The sink in front of the app's, given to `LocalAccounts` as its `events`. */
  readonly events: ImpersonationEvents
}

/** The impersonation service of the app: 30 minutes at most, the session mechanism wrapped. */
export function createImpersonations(wiring: ImpersonationWiring): Impersonations {
  return new Impersonations({
    local: wiring.local,
    stepUp: wiring.stepUp,
    protector: wiring.protector,
    authorizationResolver: wiring.authorizationResolver,
    events: wiring.events,
    ttlSeconds: IMPERSONATION_TTL_SECONDS,
    onError: (error) =>
      console.warn(
        `portcullis reference app: ending impersonations failed (they still end at their bound): ${
          (error as { code?: unknown } | null)?.code ?? 'error'
        }`,
      ),
  })
}
