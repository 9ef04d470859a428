import type { AuthorizationResolver } from '../authorization/resolver.js'
import type { AuthorizationSnapshot } from '../authorization/snapshot.js'
import type { OptionsShape } from '../errors/options.js'
import type { LocalAccounts } from '../local-accounts/local-accounts.js'
import type { OAuthTransactionProtector } from '../protection/protector.js'
import type { StepUpService } from '../step-up/service.js'
import type { ImpersonationEvents } from './events.js'

/** The step-up purpose an administrator spends to start an impersonation (one-use, so a replay fails). */
export const IMPERSONATION_STEP_UP_PURPOSE = 'impersonation-start'
export const DEFAULT_IMPERSONATION_TTL_SECONDS = 1800
export const MAX_IMPERSONATION_TTL_SECONDS = 3600
export const DEFAULT_IMPERSONATION_CAPABILITY = 'accounts.impersonate'
export const DEFAULT_IMPERSONATE_ADMINISTRATORS_CAPABILITY = 'accounts.impersonate_administrators'

export interface ImpersonationsOptions {
  /** The local accounts whose sessions impersonations are (session or hybrid profile). */
  readonly local: LocalAccounts
  /** Consumes the administrator's one-use `impersonation-start` step-up credential. */
  readonly stepUp: StepUpService
  /** Seals the impersonation cookie (the administrator's session id among its facts). */
  readonly protector: OAuthTransactionProtector
  /** The application's resolver: the target's grants come from it, never from the request. */
  readonly authorizationResolver: AuthorizationResolver
  /** The sink in front of the application's (`new ImpersonationEvents(sink)`, given to `LocalAccounts`). */
  readonly events: ImpersonationEvents
  /** What starting an impersonation takes. Default `accounts.impersonate`. */
  readonly capability?: string
  /** What impersonating an administrator takes besides. Default `accounts.impersonate_administrators`. */
  readonly administratorsCapability?: string
  /** Whether a target's snapshot makes it an administrator. Default: it holds either capability. */
  readonly isAdministrator?: (snapshot: AuthorizationSnapshot) => boolean
  /** The impersonation's bound, 60-3600 seconds. Default 1800 (30 minutes). */
  readonly ttlSeconds?: number
  /** Milliseconds since the epoch; default `Date.now` (give the `LocalAccounts` clock). */
  readonly clock?: () => number
  /** Told when ending an administrator's impersonations failed (they still end at their bound). */
  readonly onError?: (error: unknown) => void
}

export const IMPERSONATIONS_OPTIONS: OptionsShape<ImpersonationsOptions> = {
  local: { required: true, kind: 'object' },
  stepUp: { required: true, kind: 'object' },
  protector: { required: true, kind: 'object' },
  authorizationResolver: { required: true, kind: 'function' },
  events: { required: true, kind: 'object' },
  capability: { kind: 'string' },
  administratorsCapability: { kind: 'string' },
  isAdministrator: { kind: 'function' },
  ttlSeconds: { kind: 'number' },
  clock: { kind: 'function' },
  onError: { kind: 'function' },
}
