import type { SecurityContext } from '@portcullis/core/authorization'
import type { LocalAccounts, ProviderSession, SecurityEvent } from '@portcullis/core/local-accounts'
import type { BackchannelLogout, OAuthLifecycleService } from '@portcullis/core/oidc'
import type { AuthPolicy } from '@portcullis/core/policy'
import type {
  AccountEmailRouteTableOptions,
  AccountRouteTableOptions,
  ActiveOrganizationRouteTableOptions,
  ActivityRouteTableOptions,
  AdministrationRouteTableOptions,
  ImpersonationRouteTableOptions,
  OrganizationDomainRouteTableOptions,
  OrganizationRouteTableOptions,
  PasskeyRouteTableOptions,
  RouteOptions,
  SecurityOptions,
  TotpRouteTableOptions,
} from '@portcullis/http'

/** The security configuration of a scenario (no `onError`: its request type is the adapter's). */
export type ScenarioSecurity = Omit<SecurityOptions<unknown>, 'onError'>

/** What a scenario route's handler sees, whatever the framework. */
export interface ScenarioRequest {
  readonly security: SecurityContext
  readonly params: Readonly<Record<string, string>>
  /** The parsed JSON body of a route that `readsJson`; undefined otherwise. */
  readonly body?: unknown
}

/** A route of the application under test; the adapter registers it the way its users would. */
export interface ScenarioRoute {
  readonly method: 'GET' | 'POST' | 'DELETE'
  /** `:name` parameters only. */
  readonly path: string
  /** The route options (Express: the options argument; Fastify: `config`). */
  readonly options: RouteOptions
  /** The JSON body of a 200 answer. */
  respond(request: ScenarioRequest): unknown
  /**
   * The handler reads the request body as JSON the way the framework's users do before `respond`, which
   * receives it as `body`: Express, `express.json()` in front of the routes and `req.body`; Fastify, its
   * JSON parser and `request.body`; Hono, `await c.req.json()`; the fetch form, `readBody`.
   */
  readonly readsJson?: boolean
  /**
   * The `Cache-Control` the handler sets on its own answer (Express `res.set`, Fastify `reply.header`,
   * Hono `c.header`, the fetch form the headers of its `Response`).
   */
  readonly cacheControl?: string
}

/** The MCP endpoint of the application under test, at `POST /mcp`, declared before the routes. */
export interface ScenarioMcp {
  readonly auth?: AuthPolicy
  readonly listing?: 'all' | 'readable'
  /** Scheme of concrete resource URIs (`<scheme>://<name>`). */
  readonly scheme: string
  readonly protectedResource?: { readonly resource: string; readonly authorizationServers: readonly string[] }
  /** The `Host` names the endpoint answers for (the adapter passes it as the endpoint's `allowedHosts`). */
  readonly allowedHosts?: readonly string[]
}

/**
 * The OAuth routes of the application under test (`createOAuthRoutes`, no base): `auth` is their policy
 * and the `currentSession` policy; `signIn` establishes the application's session (the adapter sets
 * `setCookie` on its response and returns `body`).
 */
export interface ScenarioOAuth {
  readonly lifecycle: OAuthLifecycleService
  readonly auth: AuthPolicy
  /** `identity` is the sign-in's provider identity (its issuer, `sub` and `sid`). */
  signIn(accountId: string, identity: ProviderSession): ScenarioSignIn | Promise<ScenarioSignIn>
  /** The provider's back-channel logout (`POST /auth/oauth/{provider}/backchannel-logout`). */
  readonly backchannelLogout?: BackchannelLogout
  /** The routes' security events. */
  readonly events?: (event: SecurityEvent) => void
}

/** What `ScenarioOAuth.signIn` answers: the adapter sets `setCookie` on its response and returns `body`. */
export interface ScenarioSignIn {
  readonly setCookie: string
  readonly body: unknown
}

/**
 * The application an adapter builds for one case: its security configuration, routes, and optionally
 * the local-account routes (mounted without a base: `/auth/login`, ...), the account, passkey and TOTP
 * routes over the same local accounts, the OAuth routes and the MCP endpoint.
 */
export interface AdapterScenario {
  readonly security: ScenarioSecurity
  readonly routes: readonly ScenarioRoute[]
  /**
   * Routes with options, declared where the adapter never compiles them, the way a user can get it
   * wrong: Fastify, on the root instance before the plugin is registered; Express, on the application
   * itself (`app.get(path, options, handler)`) instead of a Portcullis router. The adapter must never
   * serve them without their policy: starting fails (a Portcullis error then has the code
   * `configuration.route_not_secured` and names the route), or every request to such a route answers
   * 500 problem+json `configuration.route_not_secured` and its handler never runs.
   */
  readonly uncompiledRoutes?: readonly ScenarioRoute[]
  /**
   * The largest body, in bytes, the application's own routes accept (Express: the `limit` of
   * `express.json()` in front of them; Fastify: the `bodyLimit` server option). Unset: the framework's.
   */
  readonly bodyLimit?: number
  readonly local?: LocalAccounts
  readonly mcp?: ScenarioMcp
  readonly oauth?: ScenarioOAuth
  /** The account routes (`createAccountRoutes`, no base): `POST /auth/step-up/{purpose}`, ... */
  readonly accounts?: AccountRouteTableOptions
  /** The passkey routes (`passkeyRoutes`, no base), mounted after the local-account routes. */
  readonly passkeys?: PasskeyRouteTableOptions
  /** The TOTP routes (`totpRoutes`, no base), mounted after the local-account routes. */
  readonly totp?: TotpRouteTableOptions
  /** The account email routes (`accountEmailRoutes`, no base), mounted after the local-account routes. */
  readonly accountEmail?: AccountEmailRouteTableOptions
  /** The organization routes (`createOrganizationRoutes`, no base), mounted after the local-account routes. */
  readonly organizations?: OrganizationRouteTableOptions
  /** The active-organization routes (`createActiveOrganizationRoutes`, no base), after the local-account routes. */
  readonly activeOrganization?: ActiveOrganizationRouteTableOptions
  /**
   * The organization-domain routes (`createOrganizationDomainRoutes`, no base), mounted after the
   * local-account routes.
   */
  readonly organizationDomains?: OrganizationDomainRouteTableOptions
  /** The activity routes (`activityRoutes`, no base), mounted after the local-account routes. */
  readonly activity?: ActivityRouteTableOptions
  /** The administration routes (`administrationRoutes`, no base), mounted after the local-account routes. */
  readonly administration?: AdministrationRouteTableOptions
  /** The impersonation routes (`impersonationRoutes`, no base), mounted after the local-account routes. */
  readonly impersonation?: ImpersonationRouteTableOptions
}

/** A running application: its base URL (`http://127.0.0.1:port`) and how to stop it. */
export interface AdapterApp {
  readonly url: string
  close(): Promise<void>
}

/**
 * Builds and starts an application for a scenario with the adapter under test, listening on loopback.
 * The adapter's own test supplies it (see `docs/conformance.md`).
 */
export type AdapterFactory = (scenario: AdapterScenario) => Promise<AdapterApp>

/** What every case receives: the factory, and the apps it started (closed after the case). */
export interface AdapterFixture {
  start(scenario: AdapterScenario): Promise<AdapterApp>
  dispose(): Promise<void>
}

export function adapterFixture(factory: AdapterFactory): AdapterFixture {
  const apps: AdapterApp[] = []
  return {
    async start(scenario) {
      const app = await factory(scenario)
      apps.push(app)
      return app
    },
    async dispose() {
      await Promise.all(apps.splice(0).map((app) => app.close()))
    },
  }
}
