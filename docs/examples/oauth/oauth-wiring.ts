// The wiring of docs/oauth.md as a function of its stores and providers: wiring.ts calls it over the
// Postgres stores and the real providers, and apps/reference/test/accounts/docs-wiring.test.ts runs it over
// memory stores and over Postgres stores against an OpenID Provider on loopback.
import { argon2idPasswordHasher } from '@portcullis/argon2'
import { AccountService, type AccountStore } from '@portcullis/core/accounts'
import { AuthorizationSnapshot, stepUpVerifierFor } from '@portcullis/core/authorization'
import {
  clearSessionCookie,
  LocalAccounts,
  type RateLimitStore,
  type SessionStore,
} from '@portcullis/core/local-accounts'
import { transactions } from '@portcullis/core/oauth'
import {
  BackchannelLogout,
  type GitHubOAuthProvider,
  OAuthLifecycleService,
  type OIDCProvider,
} from '@portcullis/core/oidc'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import type { RevocationNotices } from '@portcullis/core/revocation'
import { StepUpService, type StepUpStore } from '@portcullis/core/step-up'
import {
  createAccountRoutes,
  createOAuthRoutes,
  createSecurity,
  currentLocalSession,
  localAccountRoutes,
  localSessionOf,
} from '@portcullis/express'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import express from 'express'

export const ORIGIN = 'https://app.example'

/** The stores the wiring takes (wiring.ts creates the Postgres ones). */
export interface OAuthWiringStores {
  readonly accountStore: AccountStore
  readonly sessions: SessionStore
  readonly rateLimits: RateLimitStore
  readonly stepUpStore: StepUpStore
  readonly transactionStore: transactions.OAuthTransactionStore
  readonly notices: RevocationNotices
}

export interface OAuthWiringProviders {
  readonly google: OIDCProvider
  readonly github: GitHubOAuthProvider
  /** Seals the providers' tokens in the account store. */
  readonly protector: OAuthTransactionProtector
}

/** The app: sessions, passwords, Google and GitHub sign-in and linking, the account routes. */
export function wireOAuth(stores: OAuthWiringStores, providers: OAuthWiringProviders) {
  const { accountStore, sessions, rateLimits, stepUpStore, transactionStore, notices } = stores
  const { google, github, protector } = providers
  // #region wiring
  const stepUp = new StepUpService({ store: stepUpStore })

  const lifecycle = new OAuthLifecycleService({
    registrations: [
      {
        provider: google,
        // Google's view of the one account store: its identities are sign-in methods of these accounts.
        accounts: accountStore.oauth({ provider: google.name, clientId: google.clientId, protector }),
        redirectUri: `${ORIGIN}/auth/oauth/google/callback`,
        // A first sign-in creates the account, with this identity as its one sign-in method.
        provisionUnknown: true,
        // Purposes Google may reauthenticate for (max_age=0 forces a fresh login there).
        reauthentication: {
          'delete-account': { maxAge: 0 },
          'password-add': { maxAge: 300 },
          'oauth-unlink': { maxAge: 300 },
        },
        postLogoutRedirectUri: `${ORIGIN}/`,
      },
      {
        // GitHub has no signed auth_time: sign-in and linking only, never reauthentication.
        provider: github,
        accounts: accountStore.oauth({ provider: github.name, clientId: github.clientId, protector }),
        redirectUri: `${ORIGIN}/auth/oauth/github/callback`,
        provisionUnknown: true,
      },
    ],
    transactions: new transactions.OAuthTransactionService({
      store: transactionStore,
      // HMAC key of state and binding digests; the same on every instance.
      pepper: Buffer.from(process.env.PORTCULLIS_OAUTH_PEPPER ?? '', 'base64'),
      redirects: new transactions.OAuthRedirectPolicy({
        callbackUris: {
          google: [`${ORIGIN}/auth/oauth/google/callback`],
          github: [`${ORIGIN}/auth/oauth/github/callback`],
        },
        returnTo: ['/', '/settings', '/settings/security'],
      }),
    }),
    // Lets a callback whose token request never left this process be retried (IdP unreachable).
    transactionStore,
    stepUp,
  })

  // Passwords and sessions of the same accounts: one account store, no second one to keep in step.
  const local = new LocalAccounts({
    profile: 'session',
    accounts: accountStore,
    sessions,
    rateLimits,
    hasher: argon2idPasswordHasher(),
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
    revocation: { notices },
  })

  const security = createSecurity({
    mechanisms: local.mechanisms,
    stepUp: {
      // A credential is bound to the session it was issued to: the verifier derives that session from
      // the request's verified evidence, never from anything the client chose.
      verifier: stepUpVerifierFor(stepUp, (request) => {
        const session = localSessionOf({ ...request, snapshot: AuthorizationSnapshot.empty })
        return session && { securityEpoch: session.securityEpoch, sessionBinding: session.sessionHandle }
      }),
    },
  })

  const localRoutes = localAccountRoutes({ local, security })

  const oauthRoutes = createOAuthRoutes({
    security,
    lifecycle,
    // The signed-in user of link, scopes, unlink, revoke, logout, revalidate and reauthenticate.
    currentSession: currentLocalSession(security),
    // After a verified login (a first one included): a real local session, fixation-safe.
    // The provider session (`identity`: issuer, subject, sid) goes into its handle for back-channel logout.
    // #region provider-session
    signIn: async ({ accountId, identity, provisioned }, request, response) => {
      const signIn = await localRoutes.establishSignIn(request, response, {
        accountId,
        providerSession: identity,
      })
      // #endregion provider-session
      // `provisioned`: this sign-in created the account; start your onboarding here.
      // JSON clients see what this returns; never return the session id itself.
      return signIn.transport === 'session' ? { csrfToken: signIn.csrfToken, provisioned } : undefined
    },
    // An unlink ends every session of the account (the epoch moves); the caller gets a fresh one.
    renewSignIn: (change, request, response) => localRoutes.renewSignIn(request, response, change),
    // POST logout: end the local session first, then the browser goes to the provider's end-session URL.
    signOut: async (session, request, response) => {
      await local.logout({
        accountId: session.accountId,
        credentials: local.credentialsOf(request.security?.evidence ?? []),
      })
      if (local.sessionCookie !== undefined) {
        response.append('Set-Cookie', clearSessionCookie(local.sessionCookie))
      }
    },
    // POST /auth/oauth/{provider}/backchannel-logout: register it as the client's backchannel_logout_uri.
    // #region back-channel-logout
    backchannelLogout: new BackchannelLogout({
      lifecycle,
      revokeSessions: (match) => local.revokeProviderSessions(match),
      // Used jti's, shared by every instance: a replayed logout token is refused everywhere.
      replay: rateLimits,
    }),
    // #endregion back-channel-logout
  })

  // Password step-up, the account's sign-in methods, adding and removing the password, deleting it all.
  // The lifecycle stages the revocation of retained provider tokens before an account is deleted.
  const accountRoutes = createAccountRoutes({
    security,
    local,
    service: new AccountService({ accounts: accountStore, local, stepUp, providerTokens: lifecycle }),
  })

  const app: express.Express = express()
  app.use(security.middleware)
  app.use(localRoutes) // the CSRF guard runs before the other routes' unsafe methods
  app.use(oauthRoutes)
  app.use(accountRoutes)

  // #endregion wiring
  return { app, lifecycle, security }
}
