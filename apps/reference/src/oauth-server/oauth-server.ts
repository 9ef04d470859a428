import { hkdfSync } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import {
  type AuthorizationServer,
  type ConsentedGrant,
  createAuthorizationServer,
  createInteractions,
  type ImpersonationRefusedConsent,
  stepUpReauthentication,
} from '@portcullis/authorization-server'
import type { AccountRecords } from '@portcullis/core/accounts'
import { AUTH_TIME_ATTRIBUTE } from '@portcullis/core/authorization'
import type { RateLimitStore, SecurityNoticeSource } from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import type { StepUpService } from '@portcullis/core/step-up'
import { currentLocalSession, type Security } from '@portcullis/express'
import type { PostgresOAuthServerStore } from '@portcullis/postgres'
import type { Request } from 'express'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import type { InteractionLook } from './interaction-pages.js'
import {
  type AuthorizationServerSettings,
  MCP_SCOPES,
  OAUTH_REAUTHENTICATE_PATH,
  oauthIdentifiers,
} from './names.js'
import { derivedSigningKey } from './signing-key.js'

export { OAUTH_AUTHORIZE_PURPOSE } from '@portcullis/authorization-server'

/**
 * The app's own OAuth 2.1 authorization server for MCP clients: grants over the accounts' Postgres
 * store, sign-in through the app's session (password and second step, passkey or the demo IdP),
 * `prompt=login` and `max_age` through a password step-up of purpose `oauth-authorize`, tokens signed by
 * a key derived from the secrets (every instance derives the same), and the resource side's mechanism.
 */
export async function createReferenceAuthorizationServer(parts: {
  readonly store: PostgresOAuthServerStore
  readonly publicOrigin: string
  readonly accounts: Pick<AccountRecords, 'getAccount'>
  readonly security: Security
  readonly stepUp: StepUpService
  /** Seeds the signing key and the cookie keys. */
  readonly secret: Uint8Array
  readonly settings: AuthorizationServerSettings
  /** The app's layout and how it names accounts, for the consent and error pages. */
  readonly look: InteractionLook
  /**
   * Where registrations are counted per client address: the app's shared (Postgres) store, so the limit
   * holds across instances, and the proxies whose `X-Forwarded-For` the app believes.
   */
  readonly registrationLimits: {
    readonly store: RateLimitStore
    readonly trustedProxies: readonly string[]
  }
  /** Told of every client a person approved (after its grant is saved): the app's security log. */
  readonly onConsented: (grant: ConsentedGrant) => void
  /** Told when an impersonation was refused a consent: the app's security log, naming the administrator. */
  readonly onImpersonationRefused: (refusal: ImpersonationRefusedConsent) => void
  /** Writes the "an app was connected" notification in the grant's transaction (the app's notifier). */
  readonly securityNotices: SecurityNoticeSource
}): Promise<AuthorizationServer> {
  const { security, publicOrigin } = parts
  const { issuer, resource } = oauthIdentifiers(publicOrigin)
  const session = currentLocalSession(security, required(SESSION_MECHANISM))
  const sessionOf = async (req: IncomingMessage) => session(req as Request)
  const signedIn = security.evaluator.compile(required(SESSION_MECHANISM))
  const derive = (label: string) =>
    new Uint8Array(
      hkdfSync('sha256', parts.secret, new Uint8Array(0), `portcullis-reference|oauth|${label}`, 32),
    )
  // #region interactions
  const interactions = createInteractions({
    // The app's session is the only login state: its sign-in time becomes `auth_time`.
    async currentUser(req) {
      // Throws a 503 problem when the session store cannot answer; undefined when nobody is signed in.
      const found = await sessionOf(req)
      if (found === undefined) return undefined
      // The same memoized evaluation again: no mechanism runs twice.
      const outcome = await security.evaluation(req as Request).evaluate(signedIn)
      const evidence = outcome.kind === 'granted' ? outcome.context.evidence : []
      const authTime = evidence.find((item) => item.mechanism === SESSION_MECHANISM)?.attributes?.[
        AUTH_TIME_ATTRIBUTE
      ]
      const name = await parts.look.name(found.accountId)
      const impersonator = outcome.kind === 'granted' ? outcome.context.principal?.impersonator : undefined
      return {
        accountId: found.accountId,
        // The consent page names the account as its owner knows it.
        ...(name === undefined ? {} : { name }),
        authenticatedAt: new Date(typeof authTime === 'number' ? authTime * 1000 : 0),
        // An impersonation: the consent page refuses it (a connection would outlast it).
        ...(impersonator === undefined ? {} : { impersonator }),
      }
    },
    signInUrl: (returnTo) => `/sign-in?return_to=${encodeURIComponent(returnTo)}`,
    reauthentication: stepUpReauthentication({
      service: parts.stepUp,
      url: (returnTo) => `${OAUTH_REAUTHENTICATE_PATH}?return_to=${encodeURIComponent(returnTo)}`,
      tokenOf(req, purpose) {
        const read = security.stepUp.cookies?.read(req.headers.cookie, purpose)
        return read?.kind === 'present' ? read.value : undefined
      },
      session: sessionOf,
    }),
    scopeDescriptions: MCP_SCOPES,
    // The consent and error pages in the app's own layout.
    layout: parts.look.layout,
    // A client connected for the first time: its mail is written with the grant, in its transaction.
    securityNotices: parts.securityNotices,
    // An approved client ("connected an app") goes to the security log, so the person sees it.
    onConsented: parts.onConsented,
    // So does a consent refused to an impersonation, naming the administrator.
    onImpersonationRefused: parts.onImpersonationRefused,
  })
  // #endregion interactions
  const signingKey = await derivedSigningKey(parts.secret, 'v1')
  return createAuthorizationServer({
    issuer,
    store: parts.store,
    accounts: parts.accounts,
    interactions,
    resources: [{ indicator: resource, scopes: MCP_SCOPES }],
    signingKeys: [signingKey],
    // The interaction and session cookies verify on every instance.
    cookieKeys: [Buffer.from(derive('cookies')).toString('base64url')],
    ...(parts.settings.clientIdMetadataDocuments === undefined
      ? {}
      : { clientIdMetadataDocuments: parts.settings.clientIdMetadataDocuments }),
    ...(parts.settings.registration === true
      ? {
          registration: {
            rateLimits: parts.registrationLimits.store,
            trustedProxies: [...parts.registrationLimits.trustedProxies],
          },
        }
      : {}),
  })
}
