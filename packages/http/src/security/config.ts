import type { AuthenticationMechanism } from '@portcullis/core/authentication'
import type { AuthorizationResolver, StepUpVerifier } from '@portcullis/core/authorization'
import type { Instrumentation } from '@portcullis/core/instrumentation'
import type { SecurityEventSink, SecurityEventSinkErrorHandler } from '@portcullis/core/local-accounts'
import type { AuthPolicy } from '@portcullis/core/policy'
import type { StepUpCookies } from '../cookies/cookies.js'
import type { SecurityHeaderOverrides } from '../headers/security-headers.js'
import type { OpenApiInfo, OpenApiServer } from '../openapi/document.js'

/** What happened when Portcullis refused a request; `reason` is internal and never sent to the client. */
export interface RejectionEvent {
  readonly status: number
  /** The stable code rendered in the body. */
  readonly code: string
  /** The internal reason (`authorization.missing_role`, `api-key: revoked`, ...). */
  readonly reason: string
  readonly method: string
  /** The registered route path (`/tenants/:tenantId`), never the concrete URL. */
  readonly route: string
}

export interface OpenApiConfig {
  /** Where the adapter serves the document. Default `/openapi.json`. */
  readonly path?: string
  readonly info: OpenApiInfo
  readonly servers?: readonly OpenApiServer[]
}

export interface StepUpConfig {
  readonly verifier: StepUpVerifier
  /** Request header carrying the one-use step-up credential. Default `portcullis-step-up`. */
  readonly header?: string
  /**
   * The per-purpose step-up cookies a browser reauthentication sets (the adapters' OAuth routes),
   * read when the header is absent and deleted once presented. Default `new StepUpCookies()` (`__Host-`
   * names); pass the same instance to the OAuth routes when relaxing them for local development; `false`
   * reads the header only.
   */
  readonly cookies?: StepUpCookies | false
  /** Receives `step_up.consumed` when a guard consumed a credential; a failing sink never fails a request. */
  readonly events?: SecurityEventSink
  readonly onEventSinkError?: SecurityEventSinkErrorHandler
}

/**
 * The configuration every adapter's `createSecurity` / plugin takes; `R` is the adapter's request type
 * (what `onError` is given).
 */
export interface SecurityOptions<R> {
  /** Registered mechanisms. Registering makes a mechanism available; route policy decides where. */
  readonly mechanisms: readonly AuthenticationMechanism[]
  /** Loads grants for the verified principal, once per authenticated request. */
  readonly authorizationResolver?: AuthorizationResolver
  /**
   * Policy of routes that declare no `auth`. Default: `required()` when any mechanism is registered,
   * otherwise `anonymous()`.
   */
  readonly defaultPolicy?: AuthPolicy
  /** Needed by routes using `requiresStepUp(purpose)`. */
  readonly stepUp?: StepUpConfig
  /** Overrides of the security header baseline (`false` drops one), or `false` to send none. */
  readonly headers?: SecurityHeaderOverrides | false
  /** `Cache-Control: no-store` on responses to authenticated requests. Default true. */
  readonly noStoreAuthenticated?: boolean
  /** OpenAPI document generation and serving; `false` to serve nothing. */
  readonly openapi?: OpenApiConfig | false
  /** Observes every 401/403/503 Portcullis answers (logging, metrics). Must not throw. */
  readonly onRejection?: (event: RejectionEvent) => void
  /**
   * Metrics and traces of every route decision (a decision per request, a refusal by code): for example
   * `openTelemetryInstrumentation()` from `@portcullis/opentelemetry`. Absent: nothing is timed or recorded.
   */
  readonly instrumentation?: Instrumentation
  /** Observes every error rendered by the problem error handler. Must not throw. */
  readonly onError?: (error: unknown, request: R) => void
  /**
   * Route option keys your own modules add by augmenting `RouteOptions` (see its docs). Route options are
   * checked at registration: a key that is neither built in (`auth`, `guards`, `openapi`, the `mcpResource*`
   * options) nor listed here is a `configuration.unknown_option` error, so a typo such as `gaurds` can
   * never silently drop a route's guards.
   */
  readonly routeOptions?: readonly string[]
}
