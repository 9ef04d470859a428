import type { AuthenticationMechanism, CredentialSource } from '../../authentication/mechanism.js'
import {
  type AuthenticationOutcome,
  authenticated,
  invalid,
  none,
  unavailable,
} from '../../authentication/outcome.js'
import { AUTH_TIME_ATTRIBUTE } from '../../authorization/user-authentication.js'
import type { CsrfDecision } from './csrf.js'
import type { SessionCheck } from './session-check.js'
import { readSessionCookie } from './session-cookie.js'
import type { SessionManager } from './session-manager.js'
import type { SessionRecord } from './session-store.js'

/** The request header carrying the synchronizer token for clients without Fetch Metadata and Origin. */
export const CSRF_TOKEN_HEADER = 'x-csrf-token'

/** Evidence attribute names of the session mechanism (public: handlers and step-up bindings read them). */
export const SESSION_HANDLE_ATTRIBUTE = 'sessionHandle'
export const SECURITY_EPOCH_ATTRIBUTE = 'securityEpoch'
/**
 * The session's chosen organization, when it has one. Only a choice read from the session store: a
 * resolver (`membershipResolver`) shows it only while the account is a member, with the stored role.
 */
export const ACTIVE_ORGANIZATION_ATTRIBUTE = 'activeOrganizationId'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE'])

export interface SessionMechanismParts {
  readonly name: string
  readonly sessions: SessionManager
  /** The CSRF decision for an unsafe request carrying this session id (emits the refusal event). */
  readonly csrf: (source: CredentialSource, sessionId: string) => CsrfDecision
}

/**
 * The `session` mechanism: the `__Host-` session cookie, checked through the session manager (lookup
 * cache, security epoch, sliding renewal). An unsafe request must also pass the CSRF check, or the cookie
 * is refused (`invalid`): the HTTP adapter answers such requests with a 403 before this runs, and this
 * check makes a forgotten adapter middleware fail closed. A malformed or duplicated cookie is `invalid`,
 * never `none`.
 */
export function sessionMechanism(parts: SessionMechanismParts): AuthenticationMechanism {
  const { name, sessions, csrf } = parts
  // One outcome object per session record: the hot path allocates nothing for a cached session.
  const outcomes = new WeakMap<SessionRecord, AuthenticationOutcome>()
  const outcomeOf = (check: SessionCheck): AuthenticationOutcome => {
    if (check.kind === 'invalid') return invalid(check.reason)
    if (check.kind === 'unavailable') return unavailable(check.reason, check.retryAfterSeconds)
    const { session } = check
    let outcome = outcomes.get(session)
    if (outcome === undefined) {
      outcome = authenticated(
        { id: session.accountId, kind: 'user' },
        {
          mechanism: name,
          credentialType: 'session',
          attributes: {
            [SESSION_HANDLE_ATTRIBUTE]: session.handle,
            [SECURITY_EPOCH_ATTRIBUTE]: session.securityEpoch,
            // What `authenticatedWithin` and the authorization server's `auth_time` read: a session is
            // created by a sign-in (a new id every time), so its creation is when the user last proved it.
            [AUTH_TIME_ATTRIBUTE]: Math.floor(session.createdAt.getTime() / 1000),
            ...(session.activeOrganizationId === undefined
              ? {}
              : { [ACTIVE_ORGANIZATION_ATTRIBUTE]: session.activeOrganizationId }),
          },
          expiresAt: new Date(Math.min(session.idleExpiresAt.getTime(), session.absoluteExpiresAt.getTime())),
        },
      )
      outcomes.set(session, outcome)
    }
    return outcome
  }
  return {
    name,
    default: true,
    securityScheme: {
      type: 'apiKey',
      in: 'cookie',
      name: sessions.cookie.name,
      description: `Local session cookie; unsafe methods also need same-origin Fetch Metadata, a trusted Origin or the ${CSRF_TOKEN_HEADER} header`,
    },
    authenticate(source) {
      const read = readSessionCookie(sessions.cookie, source.header('cookie'))
      if (read.kind === 'absent') return none()
      if (read.kind === 'malformed') return invalid('session: malformed cookie')
      if (!SAFE_METHODS.has(source.method.toUpperCase())) {
        const decision = csrf(source, read.value)
        if (!decision.ok) return invalid(`session: ${decision.reason}`)
      }
      const check = sessions.check(read.value)
      return check instanceof Promise ? check.then(outcomeOf) : outcomeOf(check)
    },
  }
}
