import { integerBetween } from '@portcullis/core/errors'
import type { SecurityEventSink, SecurityEventSinkErrorHandler } from '@portcullis/core/local-accounts'
import type { LocalSession, OAuthLifecycleService, VerifiedProviderIdentity } from '@portcullis/core/oidc'
import type { AuthPolicy } from '@portcullis/core/policy'
import { OAUTH_COOKIE_OPTIONS, type OAuthCookieOptions, type StepUpCookies } from '../cookies/cookies.js'
import type { HttpExchange } from '../exchange/exchange.js'

/** What `signIn` is told after a verified OAuth / OIDC login. Secret-free. */
export interface OAuthSignIn {
  readonly provider: string
  /** The local account the provider identity is linked to. */
  readonly accountId: string
  /** True when this login created the account (`provisionUnknown`). */
  readonly provisioned: boolean
  readonly providerAccountId: string
  readonly identity: VerifiedProviderIdentity
  /** The allow-listed target recorded when the login began. */
  readonly returnTo: string
}

/** The security epoch an unlink moved to (every session and token family made before is over). */
export interface OAuthEpochChange {
  readonly accountId: string
  readonly securityEpoch: number
  readonly reason: 'identity_unlinked'
}

/** The default largest request body of the OAuth routes: 16 KiB. */
export const OAUTH_MAX_BODY_BYTES = 16 * 1024

/** How `requiresStepUp` and the OAuth routes read step-up credentials (the security instance's setting). */
export interface StepUpTransport {
  readonly header: string
  readonly cookies: StepUpCookies | undefined
}

/**
 * The OAuth route table's options, whatever the framework: the adapter turns its own callbacks
 * (`signIn(signIn, request, response)`) into these, over the exchange.
 */
export interface OAuthRouteTableOptions<N> {
  readonly lifecycle: OAuthLifecycleService
  /** Prefix of every route: `{base}/auth/oauth/{provider}/...`. Default none. */
  readonly base?: string
  readonly stepUp: StepUpTransport
  /** Establishes the local sign-in; whatever it returns is sent as `signIn` to JSON clients. */
  signIn(signIn: OAuthSignIn, exchange: HttpExchange<N>): unknown
  /** The request's current local session, from its verified authentication. */
  currentSession(exchange: HttpExchange<N>): LocalSession | undefined | Promise<LocalSession | undefined>
  /** The policy of the routes that need a signed-in user. Default: the security instance's default policy. */
  readonly auth?: AuthPolicy
  /** Ends the local session on `POST logout`. */
  readonly signOut?: (session: LocalSession, exchange: HttpExchange<N>) => unknown
  /** Keeps the caller signed in after an unlink moved the account's security epoch. */
  readonly renewSignIn?: (change: OAuthEpochChange, exchange: HttpExchange<N>) => unknown
  /** Largest accepted request body of the routes that read one. Default 16 KiB; at most 1 MiB. */
  readonly maxBodyBytes?: number
  readonly afterLogout?: string
  readonly afterUnlink?: string
  readonly cookies?: OAuthCookieOptions
  readonly events?: SecurityEventSink
  readonly onEventSinkError?: SecurityEventSinkErrorHandler
}

const localPath = (value: unknown) =>
  typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !/[\s\\]/.test(value)
    ? undefined
    : 'must be a local path'

/** The option shapes every adapter's `createOAuthRoutes` shares (it adds `security` and its callbacks). */
export const OAUTH_ROUTE_OPTIONS = {
  lifecycle: {
    required: true,
    kind: 'object',
    check: (value: unknown) =>
      typeof (value as { begin?: unknown }).begin === 'function' &&
      typeof (value as { complete?: unknown }).complete === 'function'
        ? undefined
        : 'must be an OAuthLifecycleService',
  },
  base: { kind: 'string', code: 'route.invalid_prefix' },
  signIn: { required: true, kind: 'function' },
  currentSession: { required: true, kind: 'function' },
  auth: { kind: 'object' },
  signOut: { kind: 'function' },
  renewSignIn: { kind: 'function' },
  maxBodyBytes: { kind: 'number', check: integerBetween(64, 1024 * 1024) },
  afterLogout: { kind: 'string', check: localPath },
  afterUnlink: { kind: 'string', check: localPath },
  cookies: { kind: 'object', shape: OAUTH_COOKIE_OPTIONS },
  events: { kind: 'function' },
  onEventSinkError: { kind: 'function' },
} as const
