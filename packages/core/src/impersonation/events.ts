import type { SecurityEvent, SecurityEventSink } from '../local-accounts/security-events.js'
import { emitSecurityEvent } from '../local-accounts/security-events.js'
import { impersonationIdOf, isImpersonationHandle } from './handle.js'

/** What `ImpersonationEvents` needs of the impersonation service once it exists. */
export interface ImpersonationEventTarget {
  /** The administrator of an impersonation session this instance has seen, or undefined. */
  administratorOf(sessionHandle: string): string | undefined
  /** Ends every impersonation `administratorId` started (their own session ended). */
  endStartedBy(administratorId: string): Promise<number>
}

/**
 * The security-event sink in front of the application's: every event that names an impersonation
 * session's handle is marked with the impersonation (`impersonationId`) and its administrator
 * (`actorId`), and when a session of an administrator ends (sign-out, revocation, an epoch move), the
 * impersonations they started end too, on every instance. Pass `sink` as the `LocalAccounts` sink and
 * this object as the `Impersonations` `events`.
 */
export class ImpersonationEvents {
  readonly sink: SecurityEventSink
  #target: ImpersonationEventTarget | undefined

  constructor(inner?: SecurityEventSink) {
    this.sink = (event) => {
      const marked = this.#mark(event)
      this.#follow(marked)
      if (inner !== undefined) emitSecurityEvent(inner, marked)
    }
  }

  /** Called by `Impersonations`: from now on, administrators' sign-outs end their impersonations. */
  attach(target: ImpersonationEventTarget): void {
    this.#target = target
  }

  #mark(event: SecurityEvent): SecurityEvent {
    const handle = (event as { sessionHandle?: unknown }).sessionHandle
    if (typeof handle !== 'string' || !isImpersonationHandle(handle)) return event
    const impersonationId = impersonationIdOf(handle)
    const actorId = (event as { actorId?: unknown }).actorId ?? this.#target?.administratorOf(handle)
    return {
      ...event,
      ...(impersonationId === undefined ? {} : { impersonationId }),
      ...(typeof actorId === 'string' ? { actorId } : {}),
    } as SecurityEvent
  }

  #follow(event: SecurityEvent): void {
    const target = this.#target
    if (target === undefined) return
    let administratorId: string | undefined
    if (event.type === 'session.revoked' && !isImpersonationHandle(event.sessionHandle)) {
      administratorId = event.accountId
    } else if (event.type === 'epoch.bumped') administratorId = event.accountId
    if (administratorId === undefined) return
    // Every sign-out asks the store once; an account that never impersonated anyone has nothing to end.
    target.endStartedBy(administratorId).catch(() => {})
  }
}
