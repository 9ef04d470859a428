// A real OpenID Provider (panva/oidc-provider 9) on loopback, for tests of the OIDC lifecycle. Every knob
// a test needs is a plain field: who logs in next and with which auth_time/acr/amr, whether max_age is
// ignored, whether `iss` is advertised, whether PAR is required, token endpoint failures and ID-token
// tampering. The login interaction has no UI: `/interaction/:uid` finishes it immediately.
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose'
import Provider, { type ClientMetadata, type KoaContextWithOIDC } from 'oidc-provider'

type ProviderContext = KoaContextWithOIDC

export interface NextLogin {
  accountId: string
  /** Seconds since the epoch; default the moment of the interaction. */
  authTime?: number
  acr?: string
  amr?: string[]
}

export type TokenFailure = 'none' | 'http-503' | 'hang'

/** Rewrites the ID token of the next token response: `claims` changes the payload, `resign` keeps it valid. */
export interface IdTokenTampering {
  claims?: (claims: Record<string, unknown>) => Record<string, unknown>
  /** true: sign the altered token with the IdP's own key; false: keep the old signature (tampered). */
  resign: boolean
}

export interface TestIdpOptions {
  /** Registered clients; default one confidential client `portcullis-test`. */
  clients?: readonly TestClient[]
  requirePar?: boolean
  /** Mount path prefix of the issuer (`/realms/test` for a Keycloak-shaped issuer). Default none. */
  pathPrefix?: string
  /**
   * Issue RFC 9068 JWT access tokens (`at+jwt`, scope `api`, with the login's `auth_time` and `acr`) for
   * `audience` to the client `clientId` (resource indicators, defaulted for that client only).
   */
  jwtAccessTokens?: { audience: string; clientId: string }
}

export interface TestClient {
  clientId: string
  clientSecret: string
  redirectUris: readonly string[]
  postLogoutRedirectUris?: readonly string[]
  /** Where the IdP POSTs back-channel logout tokens (with `sid`: session required). */
  backchannelLogoutUri?: string
}

export const DEFAULT_CLIENT: TestClient = {
  clientId: 'portcullis-test',
  clientSecret: 'test-secret-that-is-long-enough-0123456789',
  redirectUris: ['https://app.example/auth/oauth/idp/callback'],
  postLogoutRedirectUris: ['https://app.example/'],
}

export const ACR_VALUES = ['urn:test:loa:1', 'urn:test:loa:2'] as const

export class TestIdp {
  readonly issuer: string
  readonly port: number
  nextLogin: NextLogin = { accountId: 'alice' }
  /** Strip `max_age` and `prompt` from authorization requests (an IdP that ignores them). */
  ignoreMaxAge = false
  /** Advertise RFC 9207 `authorization_response_iss_parameter_supported` in discovery. */
  advertiseIss = true
  tokenFailure: TokenFailure = 'none'
  tamperNextIdToken: IdTokenTampering | undefined
  /** Replaces the ID token of the next token response outright. */
  replaceNextIdToken: string | undefined
  /** Counts of requests per path, for assertions such as "the token endpoint was never called". */
  readonly hits = new Map<string, number>()
  /** Rewrites the `scope` of the next token response (a partial consent). */
  rewriteNextTokenScope: ((scope: string) => string) | undefined
  readonly #server: Server
  readonly #provider: Provider
  readonly #signingKey: JWK
  #handler: (req: IncomingMessage, res: ServerResponse) => void

  private constructor(server: Server, issuer: string, provider: Provider, signingKey: JWK) {
    this.#server = server
    this.issuer = issuer
    this.port = (server.address() as AddressInfo).port
    this.#provider = provider
    this.#signingKey = signingKey
    const callback = provider.callback()
    this.#handler = (req, res) => {
      const path = (req.url ?? '').split('?')[0] ?? ''
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1)
      if (path.includes('/interaction/')) {
        this.#interaction(req, res).catch((error: unknown) => {
          res.statusCode = 500
          res.end(String(error))
        })
        return
      }
      callback(req, res)
    }
  }

  static async start(options: TestIdpOptions = {}): Promise<TestIdp> {
    let dispatch: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end()
    const server = createServer((req, res) => dispatch(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const prefix = options.pathPrefix ?? ''
    const issuer = `http://127.0.0.1:${port}${prefix}`
    const { privateKey } = await generateKeyPair('RS256', { extractable: true })
    const signingKey = { ...(await exportJWK(privateKey)), kid: `rsa-${port}`, alg: 'RS256', use: 'sig' }
    const clients = (options.clients ?? [DEFAULT_CLIENT]).map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: [...client.redirectUris],
      post_logout_redirect_uris: [...(client.postLogoutRedirectUris ?? [])],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      require_auth_time: true,
      ...(client.backchannelLogoutUri === undefined
        ? {}
        : { backchannel_logout_uri: client.backchannelLogoutUri, backchannel_logout_session_required: true }),
    })) satisfies ClientMetadata[]
    let idp: TestIdp | undefined
    const provider = new Provider(issuer, {
      clients,
      jwks: { keys: [signingKey] },
      cookies: { keys: [randomBytes(32).toString('hex')] },
      acrValues: [...ACR_VALUES],
      claims: {
        acr: null,
        amr: null,
        auth_time: null,
        iss: null,
        sid: null,
        openid: ['sub', 'amr'],
        email: ['email', 'email_verified'],
        profile: ['name'],
      },
      scopes: ['openid', 'offline_access', 'email', 'profile'],
      pkce: { required: () => true },
      findAccount: async (_ctx: unknown, id: string) => ({
        accountId: id,
        claims: async () => ({ sub: id, email: `${id}@example.test`, email_verified: true, name: id }),
      }),
      interactions: {
        url: (_ctx: unknown, interaction: { uid: string }) => `${prefix}/interaction/${interaction.uid}`,
      },
      loadExistingGrant: async (ctx: ProviderContext) => (idp as TestIdp).#grant(ctx),
      // The relying party of these tests listens on loopback, which oidc-provider's SSRF guard refuses:
      // outgoing calls (back-channel logout) to 127.0.0.1 go without that dispatcher.
      fetch: (url: string | URL | Request, init?: RequestInit) => {
        const options = (init ?? {}) as RequestInit & { dispatcher?: unknown }
        const { dispatcher, ...rest } = options
        const target = url instanceof Request ? url.url : url
        return new URL(target).hostname === '127.0.0.1' ? fetch(url, rest) : fetch(url, options)
      },
      issueRefreshToken: async () => true,
      ...jwtAccessTokenConfiguration(options.jwtAccessTokens),
      // amr travels in the ID token (as most IdPs send it), not only through userinfo.
      conformIdTokenClaims: false,
      ttl: {
        AccessToken: 3600,
        AuthorizationCode: 60,
        Grant: 3600,
        IdToken: 3600,
        Interaction: 600,
        RefreshToken: 86_400,
        Session: 3600,
      },
      features: {
        devInteractions: { enabled: false },
        revocation: { enabled: true },
        rpInitiatedLogout: { enabled: true },
        backchannelLogout: { enabled: true },
        pushedAuthorizationRequests: {
          enabled: true,
          requirePushedAuthorizationRequests: options.requirePar === true,
        },
        ...(options.jwtAccessTokens === undefined
          ? {}
          : { resourceIndicators: resourceIndicators(options.jwtAccessTokens) }),
      },
    })
    // Before the constructor calls provider.callback(), which composes the middleware stack.
    provider.use((ctx, next) => (idp as TestIdp).#middleware(ctx as ProviderContext, next))
    idp = new TestIdp(server, issuer, provider, signingKey)
    const mounted = idp
    dispatch = (req, res) => {
      if (prefix !== '' && req.url?.startsWith(prefix)) req.url = req.url.slice(prefix.length) || '/'
      mounted.#handler(req, res)
    }
    return idp
  }

  get signingKid(): string {
    return this.#signingKey.kid as string
  }

  /** Signs with this IdP's private key (under another `kid` when asked), to mint test ID tokens. */
  async sign(claims: Record<string, unknown>, kid = this.signingKid): Promise<string> {
    const key = await importJWK(this.#signingKey, 'RS256')
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(key)
  }

  /** Signs a logout token (`typ: logout+jwt` unless `header` says otherwise) with this IdP's key. */
  async signLogoutToken(
    claims: Record<string, unknown>,
    header: Record<string, unknown> = {},
  ): Promise<string> {
    const key = await importJWK(this.#signingKey, 'RS256')
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: this.signingKid, typ: 'logout+jwt', ...header })
      .sign(key)
  }

  /**
   * Runs oidc-provider's own back-channel logout of `sub`'s session `sid` for the client: it mints the
   * logout token and POSTs it to the client's `backchannel_logout_uri`, rejecting unless 200/204.
   */
  async backchannelLogout(sub: string, sid: string, clientId = DEFAULT_CLIENT.clientId): Promise<void> {
    const client = await this.#provider.Client.find(clientId)
    if (client === undefined) throw new Error(`no client ${clientId}`)
    // Not in the published typings: oidc-provider's own back-channel logout of one session.
    await (
      client as unknown as { backchannelLogout(sub: string, sid: string): Promise<void> }
    ).backchannelLogout(sub, sid)
  }

  hitsOf(path: string): number {
    return this.hits.get(path) ?? 0
  }

  /** Stops accepting connections (the IdP is "down"); `resume()` listens on the same port again. */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve())
      this.#server.closeAllConnections()
    })
    // Let clients notice their pooled keep-alive sockets closed, so the next request connects afresh.
    await new Promise((resolve) => setTimeout(resolve, 50))
  }

  async resume(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(this.port, '127.0.0.1', resolve))
  }

  async close(): Promise<void> {
    if (this.#server.listening) await this.stop()
  }

  async #grant(ctx: ProviderContext): Promise<InstanceType<Provider['Grant']> | undefined> {
    const oidc = ctx.oidc
    if (oidc?.client === undefined || oidc.session?.accountId === undefined) return undefined
    const { Grant } = oidc.provider
    const existingId = oidc.result?.consent?.grantId ?? oidc.session.grantIdFor(oidc.client.clientId)
    const grant =
      (existingId === undefined ? undefined : await Grant.find(existingId)) ??
      new Grant({ clientId: oidc.client.clientId, accountId: oidc.session.accountId })
    grant.addOIDCScope(String(oidc.params?.scope ?? 'openid'))
    const resource = oidc.params?.resource
    if (typeof resource === 'string') grant.addResourceScope(resource, 'api')
    await grant.save()
    return grant
  }

  async #middleware(ctx: ProviderContext, next: () => Promise<void>): Promise<void> {
    if (ctx.path === '/auth' && this.ignoreMaxAge) {
      const query = new URLSearchParams(ctx.querystring)
      query.delete('max_age')
      query.delete('prompt')
      ctx.querystring = query.toString()
    }
    if (ctx.path === '/token' && this.tokenFailure !== 'none') {
      if (this.tokenFailure === 'hang') await new Promise((resolve) => setTimeout(resolve, 30_000))
      ctx.status = 503
      ctx.body = { error: 'temporarily_unavailable' }
      return
    }
    await next()
    if (ctx.path === '/.well-known/openid-configuration' && !this.advertiseIss) {
      const body = { ...(ctx.body as Record<string, unknown>) }
      delete body.authorization_response_iss_parameter_supported
      ctx.body = body
    }
    const body = ctx.body as { id_token?: unknown; scope?: unknown } | undefined
    const rewrite = this.rewriteNextTokenScope
    if (ctx.path === '/token' && rewrite !== undefined && typeof body?.scope === 'string') {
      this.rewriteNextTokenScope = undefined
      ctx.body = { ...body, scope: rewrite(body.scope) }
    }
    const replacement = this.replaceNextIdToken
    if (ctx.path === '/token' && replacement !== undefined && typeof body?.id_token === 'string') {
      this.replaceNextIdToken = undefined
      ctx.body = { ...(ctx.body as object), id_token: replacement }
    }
    const tampering = this.tamperNextIdToken
    if (ctx.path === '/token' && tampering !== undefined && typeof body?.id_token === 'string') {
      this.tamperNextIdToken = undefined
      ctx.body = { ...(ctx.body as object), id_token: await this.#tamper(body.id_token, tampering) }
    }
  }

  async #tamper(token: string, tampering: IdTokenTampering): Promise<string> {
    const [header, payload, signature] = token.split('.') as [string, string, string]
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>
    const altered = tampering.claims === undefined ? claims : tampering.claims(claims)
    if (tampering.resign) return this.sign(altered)
    return `${header}.${Buffer.from(JSON.stringify(altered)).toString('base64url')}.${signature}`
  }

  async #interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await this.#provider.interactionDetails(req, res)
    if (details.prompt.name === 'login') {
      const login = this.nextLogin
      await this.#provider.interactionFinished(
        req,
        res,
        {
          login: {
            accountId: login.accountId,
            ...(login.authTime === undefined ? {} : { ts: login.authTime }),
            ...(login.acr === undefined ? {} : { acr: login.acr }),
            ...(login.amr === undefined ? {} : { amr: login.amr }),
            remember: true,
          },
        },
        { mergeWithLastSubmission: false },
      )
      return
    }
    // Consent is granted by loadExistingGrant; anything else is a test setup error.
    await this.#provider.interactionFinished(req, res, { consent: {} }, { mergeWithLastSubmission: true })
  }
}

type JwtAccessTokens = NonNullable<TestIdpOptions['jwtAccessTokens']>

function resourceIndicators(settings: JwtAccessTokens): Record<string, unknown> {
  return {
    enabled: true,
    defaultResource: async (_ctx: unknown, client: { clientId?: string } | undefined) =>
      client?.clientId === settings.clientId ? settings.audience : undefined,
    useGrantedResource: async () => true,
    getResourceServerInfo: async (_ctx: unknown, indicator: string) => {
      if (indicator !== settings.audience) throw new Error('unknown resource')
      return {
        scope: 'api',
        audience: settings.audience,
        accessTokenFormat: 'jwt',
        accessTokenTTL: 600,
        jwt: { sign: { alg: 'RS256' } },
      }
    },
  }
}

/** Copies `auth_time` and `acr` of the authorization code (or refresh token) into access tokens. */
function jwtAccessTokenConfiguration(settings: JwtAccessTokens | undefined): Record<string, unknown> {
  if (settings === undefined) return {}
  return {
    extraTokenClaims: async (ctx: ProviderContext | undefined) => {
      const entities = (ctx?.oidc as { entities?: Record<string, { authTime?: number; acr?: string }> })
        ?.entities
      const source = entities?.AuthorizationCode ?? entities?.RefreshToken
      if (source === undefined) return undefined
      return {
        ...(source.authTime === undefined ? {} : { auth_time: source.authTime }),
        ...(source.acr === undefined ? {} : { acr: source.acr }),
      }
    },
  }
}
