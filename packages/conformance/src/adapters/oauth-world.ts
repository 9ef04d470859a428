import { randomBytes } from 'node:crypto'
import { type AuthenticationMechanism, authenticated, invalid, none } from '@portcullis/core/authentication'
import { requiresStepUp, stepUpVerifierFor } from '@portcullis/core/authorization'
import type { SecurityEvent } from '@portcullis/core/local-accounts'
import type { OAuthLifecycleService } from '@portcullis/core/oidc'
import { required } from '@portcullis/core/policy'
import type { StepUpService } from '@portcullis/core/step-up'
import type { AdapterScenario } from './scenario.js'

/**
 * A real OpenID Provider behind an OAuth lifecycle, supplied by the adapter's test (the suite does not
 * start one itself): its provider must be named `idp`, allow `return_to` `/settings`, and let purpose
 * `delete-account` reauthenticate with `max_age=0`.
 */
export interface OAuthTestProvider {
  readonly lifecycle: OAuthLifecycleService
  /** The step-up service the lifecycle issues reauthentication credentials with. */
  readonly stepUp: StepUpService
  /** Runs the IdP part of a begun flow as `subject` (a fresh IdP browser); the callback's path and query. */
  authorize(redirectUrl: string, subject: string): Promise<string>
  /** The provider's back-channel logout, for the back-channel logout cases. */
  readonly backchannel: BackchannelTestProvider
  /**
   * When the lifecycle was given `securityNotices` (over an account store with an outbox): the cases of
   * notifications written in the change's transaction run.
   */
  readonly notifications?: NotificationsTestProvider
  close(): Promise<void>
}

/** The account store and outbox behind a lifecycle that writes its security notifications. */
export interface NotificationsTestProvider {
  /** Gives the account a password and a verified primary address (two ways in, somewhere to mail). */
  prepare(accountId: string): Promise<void>
  /** The security changes written to the outbox for the account, oldest first (their `type`). */
  changes(accountId: string): Promise<readonly string[]>
}

/**
 * The provider's side of OpenID Connect Back-Channel Logout: its client registration names a
 * `backchannel_logout_uri` that reaches `POST /auth/oauth/idp/backchannel-logout` of the application
 * `target` names, and the provider itself mints and POSTs the logout token there.
 */
export interface BackchannelTestProvider {
  readonly issuer: string
  readonly clientId: string
  /** Where the provider's logout requests go from now on: an application's base URL. */
  target(appUrl: string): void
  /** The provider logs out `subject`'s session `sid`: it POSTs a logout token, rejecting unless 200/204. */
  logOut(subject: string, sid: string): Promise<void>
  /** Signs `claims` with the provider's own key as a logout token (`typ: logout+jwt`). */
  signLogoutToken(claims: Record<string, unknown>): Promise<string>
}

export const SESSION_COOKIE = 'conformance-session'
const SESSION_ATTRIBUTES = (handle: string) => ({ sessionHandle: handle, securityEpoch: 0 })

/** The application's own sessions (cookie -> account and handle): what `signIn` establishes. */
class Sessions {
  readonly #byId = new Map<string, { accountId: string; handle: string }>()

  create(accountId: string): { setCookie: string; handle: string } {
    const id = randomBytes(24).toString('base64url')
    const handle = `h-${randomBytes(9).toString('base64url')}`
    this.#byId.set(id, { accountId, handle })
    return { setCookie: `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`, handle }
  }

  mechanism(): AuthenticationMechanism {
    return {
      name: 'session',
      securityScheme: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE },
      authenticate: (source) => {
        const id = source.cookie(SESSION_COOKIE)
        if (id === undefined) return none()
        const session = this.#byId.get(id)
        if (session === undefined) return invalid('session: unknown')
        return authenticated(
          { id: session.accountId, kind: 'user' },
          { mechanism: 'session', credentialType: 'session', attributes: SESSION_ATTRIBUTES(session.handle) },
        )
      },
    }
  }
}

/**
 * The OAuth world: cookie sessions, the OAuth routes, `/me`, and a step-up route for `delete-account`;
 * the routes' security events go to `events` when given.
 */
export function oauthWorld(
  provider: OAuthTestProvider,
  events?: (event: SecurityEvent) => void,
): AdapterScenario {
  const sessions = new Sessions()
  const auth = required('session')
  return {
    security: {
      mechanisms: [sessions.mechanism()],
      stepUp: {
        verifier: stepUpVerifierFor(provider.stepUp, ({ evidence }) => {
          const handle = evidence.find((item) => item.mechanism === 'session')?.attributes?.sessionHandle
          return typeof handle === 'string' ? { securityEpoch: 0, sessionBinding: handle } : undefined
        }),
      },
      openapi: { info: { title: 'OAuth conformance', version: '1' } },
    },
    routes: [
      {
        method: 'GET',
        path: '/me',
        options: { auth },
        respond: ({ security }) => ({ id: security.principal?.id }),
      },
      {
        method: 'POST',
        path: '/account/delete',
        options: { auth, guards: [requiresStepUp('delete-account')] },
        respond: () => ({ deleted: true }),
      },
    ],
    oauth: {
      lifecycle: provider.lifecycle,
      auth,
      signIn: (accountId) => {
        const session = sessions.create(accountId)
        return { setCookie: session.setCookie, body: { sessionHandle: session.handle } }
      },
      ...(events === undefined ? {} : { events }),
    },
  }
}
