import { randomBytes } from 'node:crypto'
import type { AccountRecords } from '@portcullis/core/accounts'
import type { OAuthGrants, OAuthServerStore } from '@portcullis/core/authorization-server'
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider'
import { GRANT_ID_CLAIM, type InteractionHandler } from '../interaction-handler.js'
import { clientMetadataPolicy } from './client-metadata-policy.js'
import type { OidcProviderModule } from './oidc-provider-module.js'
import type { ResolvedOptions } from './options.js'
import type { OutboundFetch } from './outbound-fetch.js'
import type { PersistenceBridge } from './persistence-bridge.js'
import { renderProviderError } from './problem.js'
import type { SigningKeyRing } from './signing-keys.js'

export interface ProviderConfigurationInput {
  readonly options: ResolvedOptions
  readonly store: OAuthServerStore & Pick<OAuthGrants, 'list'>
  /** The provider's adapter over the store (`persistenceBridge`). */
  readonly bridge: PersistenceBridge
  readonly accounts: Pick<AccountRecords, 'getAccount'>
  readonly ring: SigningKeyRing
  readonly outbound: OutboundFetch
  readonly cookieKeys: readonly string[] | undefined
  readonly clock: () => number
  /** The loaded oidc-provider module. */
  readonly oidc: OidcProviderModule
  /** The interactions, whose error page browsers are shown for a refused authorization request. */
  readonly interactions: Pick<InteractionHandler, 'errorPage'>
}

const DAY = 86_400

/**
 * The login prompt is requested on every authorization until the interaction returns a login result:
 * the application's session is the only sign-in state, the provider's own session never signs anyone in.
 * An account the interaction signed in that `findAccount` does not resolve (disabled, deleted) ends the
 * authorization with `access_denied` at the redirect URI (oidc-provider would otherwise reach the
 * consent checks without a grant and fail with a server error).
 */
function alwaysAskTheApplication({ errors, interactionPolicy }: OidcProviderModule) {
  const policy = interactionPolicy.base()
  const login = policy.get('login')
  if (login === undefined) throw new Error('oidc-provider has no login prompt')
  login.checks.add(
    new interactionPolicy.Check(
      'application_session',
      'the application signs the user in on every authorization',
      'login_required',
      (ctx) => {
        if (ctx.oidc.result?.login === undefined) return interactionPolicy.Check.REQUEST_PROMPT
        if (ctx.oidc.account === undefined) {
          throw new errors.AccessDenied(undefined, 'the account cannot be signed in')
        }
        return interactionPolicy.Check.NO_NEED_TO_PROMPT
      },
    ),
    0,
  )
  return policy
}

/**
 * The grant the authorization continues: the one the interaction just made or extended, else the one the
 * provider's session cookie names, else the account's newest active grant for this client found in the
 * store, so consent is asked once per client and account on every browser, and again only when the scopes
 * grow. A candidate that is gone (disconnected, revoked) or belongs to another account or client is
 * skipped, so a browser whose own grant ended still finds the account's newer one.
 */
function existingGrant(grants: Pick<OAuthGrants, 'list'>, bridge: PersistenceBridge) {
  return async (ctx: KoaContextWithOIDC) => {
    const clientId = ctx.oidc.client?.clientId
    const accountId = ctx.oidc.session?.accountId
    if (clientId === undefined || accountId === undefined) return undefined
    const owned = async (grantId: string | undefined) => {
      if (grantId === undefined) return undefined
      const grant = await ctx.oidc.provider.Grant.find(grantId)
      return grant?.accountId === accountId && grant.clientId === clientId ? grant : undefined
    }
    return (
      (await owned(ctx.oidc.result?.consent?.grantId)) ??
      (await owned(ctx.oidc.session?.grantIdFor(clientId))) ??
      (await owned(
        (
          await grants.list(accountId).catch((error: unknown) => Promise.reject(bridge.unavailable(error)))
        ).find((grant) => grant.clientId === clientId)?.grantId,
      ))
    )
  }
}

/** The `auth_time` / `acr` of the code or refresh token an access token is issued from, when known. */
function sourceClaims(ctx: KoaContextWithOIDC): Record<string, unknown> {
  const source = ctx.oidc.entities.AuthorizationCode ?? ctx.oidc.entities.RefreshToken
  const claims: Record<string, unknown> = {}
  if (typeof source?.authTime === 'number') claims.auth_time = source.authTime
  if (typeof source?.acr === 'string') claims.acr = source.acr
  return claims
}

/** The proof algorithms the token endpoint accepts (`dpop_signing_alg_values_supported`). */
export const DPOP_ALGORITHMS = Object.freeze(['ES256', 'EdDSA', 'PS256', 'RS256'] as const)

/** oidc-provider's configuration: its features switched on and bounded; no OAuth logic of our own. */
export function providerConfiguration(input: ProviderConfigurationInput): Configuration {
  const { options, ring, outbound, accounts, oidc } = input
  const { errors } = oidc
  const { resources, registration, cimd, mountPath } = options
  const indicators = [...resources.keys()]
  const only = indicators.length === 1 ? indicators[0] : undefined

  return {
    adapter: input.bridge.adapter,
    jwks: { keys: ring.keys.map((key) => ({ ...key })) } as Configuration['jwks'],
    cookies: {
      keys: [...(input.cookieKeys ?? [randomBytes(32).toString('base64url')])],
      long: { signed: true },
      short: { signed: true },
    },
    responseTypes: ['code'],
    // Public clients only (MCP clients are desktop, command-line and browser apps): no client secret is
    // ever issued or accepted, and the metadata advertises `none` alone (so no HS256 client assertions).
    clientAuthMethods: ['none'],
    // The resources' scopes are the server's scope values too: a client's registration or metadata
    // document may list them in its `scope` (the scopes it will ever ask for), which oidc-provider checks
    // against this list. Consent and tokens still go by resource (each token carries its resource's).
    scopes: [...new Set([...resources.values()].flatMap((resource) => resource.scopes))],
    clientDefaults: {
      // MCP clients are mostly desktop and command-line apps: unless a client says `web`, the RFC 8252
      // loopback rule applies (any port on http://127.0.0.1 and http://[::1] redirect URIs).
      application_type: 'native',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: ring.alg,
    },
    extraClientMetadata: clientMetadataPolicy(errors, options.clients.privateUseRedirectSchemes),
    pkce: { required: () => true },
    rotateRefreshToken: () => true,
    loadExistingGrant: existingGrant(input.store, input.bridge),
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    async findAccount(_ctx, sub) {
      const account = await accounts
        .getAccount(sub)
        .catch((error: unknown) => Promise.reject(input.bridge.unavailable(error)))
      if (account === null || account.status !== 'active') return undefined
      return { accountId: sub, claims: async () => ({ sub }) }
    },
    extraTokenClaims: async (ctx, token) => {
      const grantId = 'grantId' in token ? token.grantId : undefined
      return { ...sourceClaims(ctx), ...(typeof grantId === 'string' ? { [GRANT_ID_CLAIM]: grantId } : {}) }
    },
    ttl: {
      AuthorizationCode: 60,
      Interaction: 600,
      Session: DAY,
      Grant: 365 * DAY,
      RefreshToken: 30 * DAY,
      AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? 300,
    },
    interactions: {
      url: (_ctx, interaction) => `${mountPath}/interaction/${interaction.uid}`,
      policy: alwaysAskTheApplication(oidc),
    },
    fetch: outbound.fetch,
    fetchResponseBodyLimits: { 'client_id metadata document': cimd.maxBytes },
    renderError: renderProviderError(input.interactions),
    // DPoP (RFC 9449): a client that sends a proof to the token endpoint gets `token_type: DPoP` and a
    // `cnf.jkt` in the access token; a public client's refresh tokens are bound to the same key. The
    // algorithms are those `oauthAccessTokens({ dpop })` accepts by default.
    enabledJWA: { dPoPSigningAlgValues: [...DPOP_ALGORITHMS] },
    features: {
      dPoP: { enabled: true, allowReplay: false },
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: false },
      introspection: { enabled: false },
      revocation: { enabled: true },
      registration: { enabled: registration !== undefined, initialAccessToken: false },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => {
          if (oneOf !== undefined) return oneOf
          if (only !== undefined) return only
          throw new errors.InvalidTarget('the resource parameter is required')
        },
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          const resource = resources.get(indicator)
          if (resource === undefined) throw new errors.InvalidTarget()
          return {
            scope: resource.scopes.join(' '),
            audience: indicator,
            accessTokenTTL: resource.ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: ring.alg, kid: ring.kid } },
          }
        },
      },
    },
  }
}
