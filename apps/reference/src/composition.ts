import { AccountService } from '@portcullis/core/accounts'
import { AccountAdministration } from '@portcullis/core/administration'
import { ApiKeyService, ApiKeyUsageRecorder } from '@portcullis/core/api-keys'
import { AuthorizationSnapshot, stepUpVerifierFor } from '@portcullis/core/authorization'
import { ImpersonationEvents, ImpersonationRefusedActs } from '@portcullis/core/impersonation'
import { CachedJWKSProvider } from '@portcullis/core/jwks'
import type { MCPResourceRegistry } from '@portcullis/core/mcp'
import { StepUpService } from '@portcullis/core/step-up'
import {
  accountEmailRoutes,
  activityRoutes,
  createAccountRoutes,
  createSecurity,
  localAccountRoutes,
  localSessionOf,
  type ResourceApp,
  type ResourceRoutePath,
  StepUpCookies,
} from '@portcullis/express'
import { impersonationRoutes } from '@portcullis/express/impersonation'
import {
  PostgresAccountStore,
  PostgresApiKeyStore,
  type PostgresClient,
  PostgresOAuthServerStore,
  PostgresRateLimitStore,
  PostgresRevocationNotices,
  PostgresStepUpStore,
} from '@portcullis/postgres'
import { createMailFlows, createMailStores } from './account-email/account-email-wiring.js'
import { recoveryRoutes } from './account-email/recovery-pages.js'
import { accountRoutes } from './accounts/account-routes.js'
import { formBody } from './accounts/forms.js'
import { createLocalAccounts, isInsecureLoopback, type SeededUser } from './accounts/local-accounts.js'
import { createOAuthLifecycle, providerOrigins } from './accounts/oauth.js'
import { oauthSignInRoutes } from './accounts/oauth-routes.js'
import { secondFactorRoutes } from './accounts/second-factor-routes.js'
import { createSecondFactors } from './accounts/second-factors.js'
import { activityPages } from './activity/activity-pages.js'
import { createActivityLog } from './activity/activity-wiring.js'
import { administrationPages } from './administration/administration-pages.js'
import { apiKeyMechanism, workloadMechanism } from './api/mechanisms.js'
import type { DemoParts } from './app.js'
import type { ReferenceContext } from './app-context.js'
import { quietly } from './demo-idp/provider.js'
import { DemoDirectory } from './directory/demo-directory.js'
import { impersonationPages } from './impersonation/impersonation-pages.js'
import { createImpersonations, withImpersonationCapability } from './impersonation/impersonation-wiring.js'
import type { AppMail } from './mail/app-mail.js'
import { referenceMcpEndpoint } from './mcp/mcp-endpoint.js'
import { oauthAccessTokenMechanism } from './oauth-server/access-tokens.js'
import { interactionLook } from './oauth-server/interaction-pages.js'
import { type AuthorizationServerSettings, oauthIdentifiers } from './oauth-server/names.js'
import { reauthenticationRoutes } from './oauth-server/reauthentication-routes.js'
import { organizationRouters } from './organizations/organization-routers.js'
import { createOrganizations } from './organizations/organization-wiring.js'
import type { ProviderSettings } from './providers/provider-settings.js'
import type { KeyMaterial } from './secrets/key-material.js'
import { SecurityEventLog } from './security-events/event-log.js'
import { seedDemoData } from './seed/demo-seed.js'

export interface ComposeOptions {
  readonly postgres: PostgresClient
  /** The mail transport (the development mailbox or `SMTP_URL`); the outbox drain sends through it. */
  readonly mail: AppMail
  /**
   * The revocation listener's own connection (the server itself when `postgres` goes through a pooler
   * in transaction mode) and `application_name`. Default: a connection like the pool's.
   */
  readonly listener?: { readonly connectionString?: string; readonly applicationName?: string }
  readonly keys: KeyMaterial
  /** Where this process listens (its own JWKS is fetched from there). */
  readonly selfUrl: string
  /** The origin browsers and clients use. */
  readonly publicOrigin: string
  /** Other origins the app is reached at (CSRF). */
  readonly trustedOrigins: readonly string[]
  readonly trustedProxies: readonly string[]
  readonly idp?: { readonly issuer: string }
  readonly providers: readonly ProviderSettings[]
  /** The app's own authorization server for MCP clients (registration, how documents are fetched). */
  readonly authorizationServer?: AuthorizationServerSettings
  /** The DNS servers the organization domain checks ask; the system's resolvers by default. */
  readonly dnsServers?: readonly string[]
}

/** The demo's parts, plus what to do once routes are declared (`attach`) and at shutdown (`close`). */
export interface ComposedDemo extends DemoParts {
  /** Publishes the app's marked routes to the MCP endpoint; call after `createReferenceApp`. */
  attach(app: ResourceApp): Promise<void>
  /** Creates the demo users' accounts when missing and binds them in the directory (before serving). */
  seedDemoUsers(): Promise<readonly SeededUser[]>
  close(): Promise<void>
}

const isLoopbackHttp = (url: string) => /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(url)

/**
 * The composition root: every adapter is built here and nowhere else. Mechanisms: the local-accounts
 * session (Postgres stores, argon2id), API keys over Postgres, and workload JWTs from the demo issuer. One
 * authorization resolver (the demo directory) serves them all. The OAuth routes sign in with the demo
 * OpenID Provider (and any real provider the environment enables) into the local session.
 */
export async function composeDemo(options: ComposeOptions): Promise<ComposedDemo> {
  const { postgres, keys, publicOrigin } = options
  const directory = new DemoDirectory()
  // The durable security log (Postgres, batched off the request path): the activity pages read it. The
  // event page's log hands it every event, the app's own (API keys, disconnected apps) included.
  const activity = createActivityLog(postgres)
  const events = new SecurityEventLog({ forward: (event) => activity.writer.record(event) })
  // One LISTEN connection per instance: every revocation anywhere evicts this instance's caches. It is
  // trusted only once it heard its own heartbeat NOTIFY; when it cannot (pointed at a pooler in
  // transaction mode) it says why once, on stderr, and the caches read the database on every request.
  const notices = new PostgresRevocationNotices({
    client: postgres,
    ...options.listener,
    onProblem: (problem) => console.warn(`portcullis reference app: ${problem.message}`),
  })
  await notices.start()
  const store = new PostgresApiKeyStore({ client: postgres })
  const service = new ApiKeyService({ store, peppers: keys.peppers, prefix: 'demo', notices })
  const usage = new ApiKeyUsageRecorder({ store, flushIntervalMs: 5_000 })
  // One JWKS provider per process, shared by every JWT verifier (the OIDC providers will join it).
  const jwks = new CachedJWKSProvider({ allowInsecureLoopback: isLoopbackHttp(options.selfUrl) })
  // One account store: passwords, provider identities, the security epoch; local accounts and OAuth share it.
  const accountStore = new PostgresAccountStore({ client: postgres })
  const stepUp = new StepUpService({ store: new PostgresStepUpStore({ client: postgres }) })
  // The mail outbox and notification settings in Postgres; the notifier's notifications of TOTP,
  // passkeys, provider links and connected apps are written in their stores' transactions (their events
  // say `notified`, so its sink, which hands every event to the app's log, enqueues none again).
  const mailStores = createMailStores({ postgres, accounts: accountStore, keys, publicOrigin })
  const sink = mailStores.notifier.sink(events.sink)
  // In front of them: marks every event of an impersonation session with its administrator, and ends an
  // administrator's impersonations when their own session ends.
  const impersonationEvents = new ImpersonationEvents(sink)
  // Passkeys and the TOTP second factor (its gate makes password sign-ins of enrolled accounts two-step).
  const factors = createSecondFactors({
    postgres,
    keys,
    publicOrigin,
    stepUp,
    events: impersonationEvents.sink,
    securityNotices: mailStores.notifier,
  })
  const local = createLocalAccounts({
    postgres,
    accounts: accountStore,
    keys,
    publicOrigin,
    trustedOrigins: options.trustedOrigins,
    trustedProxies: options.trustedProxies,
    events: impersonationEvents.sink,
    notices,
    secondFactor: factors.secondFactor,
  })
  // Organizations: the users' tenants are their memberships (evicted everywhere by `membership` notices).
  const organizations = await createOrganizations({
    postgres,
    keys,
    publicOrigin,
    notices,
    directory,
    accounts: accountStore,
    ...(options.dnsServers === undefined ? {} : { dnsServers: options.dnsServers }),
    events: impersonationEvents.sink,
  })
  // Password reset, verification, email change and notification settings; the drain sends their mail
  // after commit (at once when a page wakes it, otherwise at the next poll).
  const mailFlows = createMailFlows({
    postgres,
    accounts: accountStore,
    local,
    stores: mailStores,
    keys,
    publicOrigin,
    stepUp,
    secondFactor: factors.secondFactor,
    passkeys: factors.passkeys?.service,
    mailer: options.mail.mailer,
    pollIntervalMs: options.mail.mailbox === undefined ? 5_000 : 1_000,
    addressVerified: organizations.automatic, // a verified address at a domain: its invitations
  })
  // Plain-http loopback: the OAuth and step-up cookies drop `Secure` and the `__Host-` prefix too.
  const cookies = isInsecureLoopback(publicOrigin)
    ? { insecureLocalhostDevelopment: true, publicOrigin }
    : undefined
  const oauth = await createOAuthLifecycle({
    postgres,
    accountStore,
    keys,
    publicOrigin,
    jwks,
    stepUp,
    providers: options.providers,
    ...(options.idp === undefined ? {} : { idp: options.idp }),
    securityNotices: mailStores.notifier,
  })
  // With `accounts.impersonate` for the directory's administrators; an impersonation's grants are the
  // account's own, from the same resolver.
  const authorizationResolver = withImpersonationCapability(organizations.resolver)
  const impersonations = createImpersonations({
    local,
    stepUp,
    protector: keys.protector,
    authorizationResolver,
    events: impersonationEvents,
  })
  // The grants of the app's own authorization server (MCP clients sign in as the app's users).
  const grants = new PostgresOAuthServerStore({ client: postgres })
  // #region security
  const security = createSecurity({
    mechanisms: [
      // The session mechanism, wrapped: an impersonation session carries `impersonator`.
      ...impersonations.mechanisms(local.mechanisms),
      apiKeyMechanism(service, usage),
      workloadMechanism(jwks, options.selfUrl),
      oauthAccessTokenMechanism({
        grants,
        publicOrigin,
        selfUrl: options.selfUrl,
        jwks,
        notices,
        dpopReplay: new PostgresRateLimitStore({ client: postgres }),
      }),
    ],
    authorizationResolver,
    // Step-up credentials (the OAuth reauthentication, the password before linking) are bound to the
    // local session's handle and the account's security epoch.
    stepUp: {
      verifier: stepUpVerifierFor(stepUp, (request) => {
        const session = localSessionOf({ ...request, snapshot: AuthorizationSnapshot.empty })
        return session && { securityEpoch: session.securityEpoch, sessionBinding: session.sessionHandle }
      }),
      ...(cookies === undefined ? {} : { cookies: new StepUpCookies(cookies) }),
      events: events.sink,
    },
    // Pages post forms: under `no-referrer` browsers send `Origin: null` with them, which the CSRF check
    // must refuse. `same-origin` keeps the real Origin on same-origin requests and still sends no referrer
    // to other sites.
    headers: {
      'Referrer-Policy': 'same-origin',
      // The OAuth routes answer form posts (link, reauthenticate) with a redirect to the provider.
      'Content-Security-Policy': `default-src 'self'; base-uri 'none'; form-action 'self' ${providerOrigins(options.idp, options.providers).join(' ')}; frame-ancestors 'none'; object-src 'none'`,
    },
    openapi: {
      info: { title: 'Portcullis reference app', version: '0.0.0' },
      servers: [{ url: publicOrigin }],
    },
  })
  // #endregion security
  const localRoutes = localAccountRoutes({ local, security })
  const oauthRoutes =
    oauth &&
    oauthSignInRoutes({
      security,
      lifecycle: oauth.lifecycle,
      local,
      localRoutes,
      directory,
      postgres,
      cookies,
      events: sink,
    })
  const accounts = new AccountService({
    accounts: accountStore,
    local,
    stepUp,
    ...(oauth === undefined ? {} : { providerTokens: oauth.lifecycle }),
  })
  // Administration (the admin role of the demo directory): every change audited in the security log.
  const administration = new AccountAdministration({
    accounts: accountStore,
    local,
    stepUp,
    log: activity.log,
    writer: activity.writer,
    apiKeys: { store, directory: store },
    grants,
    passwordReset: mailFlows.accountEmail,
  })
  directory.names.use(async (accountId) => (await accounts.overview(accountId))?.methods ?? null)
  directory.addresses.use((accountId) => accountStore.listEmailAddresses(accountId))
  // Loaded here, with oidc-provider's console notices held back (its Node.js version advice): the app's
  // console says what runs.
  const authorizationServerModule = await quietly(() => import('./oauth-server/oauth-server.js'))
  const authorizationServer = await authorizationServerModule.createReferenceAuthorizationServer({
    store: grants,
    publicOrigin,
    accounts: accountStore,
    security,
    stepUp,
    secret: keys.oauthTransactionPepper,
    settings: options.authorizationServer ?? {},
    look: interactionLook(directory),
    registrationLimits: {
      store: new PostgresRateLimitStore({ client: postgres }),
      trustedProxies: options.trustedProxies,
    },
    onConsented: (grant) => activity.clientConnected(grant),
    // #region impersonation-consent
    // A consent refused to an impersonation goes to the security log, naming the administrator.
    onImpersonationRefused: ({ accountId, impersonator }) =>
      impersonations.recordRefusal({ accountId, impersonator, act: ImpersonationRefusedActs.clientConsent }),
    // #endregion impersonation-consent
    securityNotices: mailStores.notifier,
  })
  // Created before any route is declared, so a marking mistake throws where the route is declared.
  const mcp = referenceMcpEndpoint(security, publicOrigin, oauthIdentifiers(publicOrigin).issuer)
  let registry: MCPResourceRegistry<ResourceRoutePath> | undefined
  const context: ReferenceContext = {
    postgres,
    directory,
    organizations,
    events,
    apiKeys: { service, store, directory: store },
    impersonations,
    publicOrigin,
    pageCookieKey: keys.pageCookieKey,
    providers: options.providers,
    ...(options.mail.mailbox === undefined ? {} : { mailbox: options.mail.mailbox }),
    ...(options.idp === undefined ? {} : { idp: options.idp }),
  }
  return {
    context,
    security,
    mcp,
    registry: () => registry,
    accountRouters: [
      localRoutes,
      ...(oauthRoutes === undefined ? [] : [oauthRoutes]),
      createAccountRoutes({ security, local, service: accounts }),
      // Impersonation: the JSON routes under /auth/impersonation, the start page and the banner's End.
      impersonationRoutes({ impersonations, local, security }),
      impersonationPages(security, context, {
        impersonations,
        local,
        service: accounts,
        accounts: accountStore,
      }),
      // The JSON routes of passkeys and TOTP.
      ...secondFactorRoutes({ factors, stepUp, local, security }),
      // Where an authorization that asks for a fresh sign-in (`prompt=login`, `max_age`) confirms it.
      reauthenticationRoutes(security, context, accounts, authorizationServerModule.OAUTH_AUTHORIZE_PURPOSE),
      // The JSON routes of the mail flows under /auth/ (reset, verification, email change, settings),
      // then their pages: "Forgot password?", the code entry page the mail links to.
      accountEmailRoutes({ security, accountEmail: mailFlows.accountEmail, local, stepUp }),
      recoveryRoutes(security, context, { ...mailFlows, local }, formBody()),
      accountRoutes(security, context, {
        local,
        service: accounts,
        recoverySeed: keys.demoSessionKey,
        stepUp,
        factors,
        accountEmail: mailFlows.accountEmail,
        wake: mailFlows.wake,
      }),
      // Recent activity and the signed-in devices: the JSON routes under /auth/activity, then the pages.
      activityRoutes({ security, local, securityLog: activity.log }),
      activityPages(security, context, { local, securityLog: activity.log }),
      // The administration pages (search, view, disable, enable, sign out everywhere), admin role only.
      administrationPages(security, context, { administration, service: accounts }),
      // Organizations: members, invitations, the invitation mail's accept and sign-up pages.
      ...organizationRouters(security, context, {
        local,
        accountEmail: mailFlows.accountEmail,
        accounts: accountStore,
        wake: mailFlows.wake,
      }),
    ],
    signer: keys.workloadSigner,
    authorizationServer,
    trustedProxies: options.trustedProxies,
    async attach(app) {
      registry = await mcp.attach(app)
    },
    seedDemoUsers: () =>
      seedDemoData({
        local,
        store: accountStore,
        directory,
        seed: keys.demoSessionKey,
        organizations,
        idp: options.idp,
        oauth,
      }),
    async close() {
      await activity.close()
      await mailFlows.close()
      await authorizationServer.close()
      await notices.close()
      await oauth?.close()
      await usage.close()
      organizations.resolver.close()
      await jwks.close()
    },
  }
}
