import type { LocalAccounts, SecurityEventSink } from '@portcullis/core/local-accounts'
import { BackchannelLogout, type OAuthLifecycleService } from '@portcullis/core/oidc'
import { required } from '@portcullis/core/policy'
import {
  createOAuthRoutes,
  currentLocalSession,
  type localAccountRoutes,
  type Security,
} from '@portcullis/express'
import { type PostgresClient, PostgresRateLimitStore } from '@portcullis/postgres'
import type { DemoDirectory } from '../directory/demo-directory.js'
import { SESSION_MECHANISM } from './local-accounts.js'

/**
 * The OAuth routes under `/auth/oauth/`: sign-in and linking with the demo IdP (and any real provider),
 * into the local session; the providers' back-channel logout; unlinking renews this browser's session.
 */
export function oauthSignInRoutes(input: {
  readonly security: Security
  readonly lifecycle: OAuthLifecycleService
  readonly local: LocalAccounts
  readonly localRoutes: ReturnType<typeof localAccountRoutes>
  readonly directory: DemoDirectory
  readonly postgres: PostgresClient
  readonly cookies:
    | { readonly insecureLocalhostDevelopment: boolean; readonly publicOrigin: string }
    | undefined
  readonly events: SecurityEventSink
}) {
  const { security, lifecycle, local, localRoutes, cookies } = input
  return createOAuthRoutes({
    security,
    lifecycle,
    currentSession: currentLocalSession(security, required(SESSION_MECHANISM)),
    afterUnlink: '/account',
    // A first sign-in with the demo IdP created the account (`provisioned`): a session like any other.
    signIn: async ({ accountId, identity }, request, response) => {
      // The header names an account without a password by the email its provider gave.
      if (identity.email !== undefined) input.directory.names.rememberEmail(accountId, identity.email)
      await localRoutes.establishSignIn(request, response, {
        accountId,
        transport: 'session',
        providerSession: identity,
      })
    },
    // The providers' back-channel logout (register `{origin}/auth/oauth/{provider}/backchannel-logout`).
    backchannelLogout: new BackchannelLogout({
      lifecycle,
      revokeSessions: (match) => local.revokeProviderSessions(match),
      replay: new PostgresRateLimitStore({ client: input.postgres }),
    }),
    // An unlink moved the epoch: every other session ended, this browser keeps a fresh one.
    renewSignIn: (change, request, response) => localRoutes.renewSignIn(request, response, change),
    signOut: async (session, request) => {
      await local.logout({
        accountId: session.accountId,
        credentials: local.credentialsOf(request.security?.evidence ?? []),
      })
    },
    ...(cookies === undefined ? {} : { cookies }),
    events: input.events,
  })
}
