// Provider presets against a scripted network (the real IdPs are not reachable from tests): issuers,
// pinned origins, and Entra ID's tenant-aware issuer validation end to end through the lifecycle.
import { type CryptoKey, exportJWK, generateKeyPair, SignJWT } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import { CachedJWKSProvider } from '../../src/jwks/cached-jwks-provider.js'
import { createFetchJWKSFetcher } from '../../src/jwks/jwks-fetcher.js'
import { OIDCDiscoveryClient } from '../../src/oidc/discovery-client.js'
import { OIDCError } from '../../src/oidc/errors.js'
import {
  discoverAuth0OidcProvider,
  discoverGoogleOidcProvider,
  discoverKeycloakOidcProvider,
  discoverMicrosoftOidcProvider,
  discoverOktaOidcProvider,
  MICROSOFT_CONSUMER_TENANT,
} from '../../src/oidc/presets.js'
import {
  accountStore,
  CALLBACK,
  jsonResponse,
  lifecycleFor,
  type Route,
  scriptedNetwork,
  testProtector,
} from './support/wiring.js'

const CLIENT = { clientId: 'client-1', clientSecret: 'secret-1' }

function oidcDocument(issuer: string, base: string, overrides: Record<string, unknown> = {}) {
  return {
    issuer,
    authorization_endpoint: `${base}/authorize`,
    token_endpoint: `${base}/token`,
    jwks_uri: `${base}/keys`,
    id_token_signing_alg_values_supported: ['RS256'],
    response_types_supported: ['code'],
    ...overrides,
  }
}

function shared(routes: Record<string, Route>, allowedIssuers: string[]) {
  const network = scriptedNetwork(routes)
  const discovery = new OIDCDiscoveryClient({
    allowedIssuers,
    fetch: network.fetch,
    resolveHost: network.resolveHost,
  })
  const jwks = new CachedJWKSProvider({ fetcher: createFetchJWKSFetcher({ fetch: discovery.fetch }) })
  return { network, discovery, jwks }
}

describe('Google', () => {
  const google = {
    issuer: 'https://accounts.google.com',
    authorization_endpoint: 'https://accounts.google.com/o/oauth2/v2/auth',
    token_endpoint: 'https://oauth2.googleapis.com/token',
    userinfo_endpoint: 'https://openidconnect.googleapis.com/v1/userinfo',
    revocation_endpoint: 'https://oauth2.googleapis.com/revoke',
    jwks_uri: 'https://www.googleapis.com/oauth2/v3/certs',
    response_types_supported: ['code'],
    id_token_signing_alg_values_supported: ['RS256'],
    code_challenge_methods_supported: ['plain', 'S256'],
  }
  const wellKnown = 'https://accounts.google.com/.well-known/openid-configuration'

  it('pins Google issuer, keys on www.googleapis.com and tokens on oauth2.googleapis.com', async () => {
    const { discovery, jwks } = shared({ [wellKnown]: () => jsonResponse(google) }, [
      'https://accounts.google.com',
    ])
    const provider = await discoverGoogleOidcProvider({ ...CLIENT, discovery, jwks, offlineAccess: true })
    expect(provider.name).toBe('google')
    expect(provider.issuer).toBe('https://accounts.google.com')
    expect(provider.metadata.revocationEndpoint).toBe('https://oauth2.googleapis.com/revoke')
    expect(provider.supportsRevocation).toBe(true)
    const url = new URL(
      await provider.authorizationUrl({
        redirectUri: CALLBACK,
        state: 's'.repeat(43),
        nonce: 'n'.repeat(43),
        codeChallenge: 'c'.repeat(43),
        scopes: ['openid'],
      }),
    )
    expect(url.origin + url.pathname).toBe('https://accounts.google.com/o/oauth2/v2/auth')
    expect(url.searchParams.get('access_type')).toBe('offline')
    await provider.close()
  })

  it('refuses a Google document whose keys live on another origin', async () => {
    const tampered = { ...google, jwks_uri: 'https://keys.evil.example/certs' }
    const { discovery, jwks } = shared({ [wellKnown]: () => jsonResponse(tampered) }, [
      'https://accounts.google.com',
    ])
    await expect(discoverGoogleOidcProvider({ ...CLIENT, discovery, jwks })).rejects.toMatchObject({
      reason: 'jwks-uri-origin',
    })
  })

  it('needs the issuer in the application allow-list', async () => {
    const { discovery, jwks, network } = shared({ [wellKnown]: () => jsonResponse(google) }, [
      'https://other.example',
    ])
    await expect(discoverGoogleOidcProvider({ ...CLIENT, discovery, jwks })).rejects.toMatchObject({
      code: 'oidc.discovery.issuer_not_allowed',
    })
    expect(network.requests).toEqual([])
  })
})

describe('Okta, Auth0 and Keycloak issuers', () => {
  it('Okta custom authorization server and org server', async () => {
    const custom = 'https://example.okta.com/oauth2/default'
    const org = 'https://example.okta.com'
    const { discovery, jwks } = shared(
      {
        [`${custom}/.well-known/openid-configuration`]: () =>
          jsonResponse(oidcDocument(custom, `${custom}/v1`)),
        [`${org}/.well-known/openid-configuration`]: () =>
          jsonResponse(oidcDocument(org, `${org}/oauth2/v1`)),
      },
      [custom, org],
    )
    const withServer = await discoverOktaOidcProvider({
      ...CLIENT,
      discovery,
      jwks,
      domain: 'example.okta.com',
      authorizationServerId: 'default',
    })
    expect(withServer.issuer).toBe(custom)
    const orgServer = await discoverOktaOidcProvider({
      ...CLIENT,
      discovery,
      jwks,
      domain: 'example.okta.com',
      name: 'okta-org',
    })
    expect(orgServer.issuer).toBe(org)
    await expect(
      discoverOktaOidcProvider({ ...CLIENT, discovery, jwks, domain: 'https://example.okta.com/x' }),
    ).rejects.toMatchObject({ code: 'oidc.provider.domain_invalid' })
  })

  it('Auth0 keeps its trailing-slash issuer exactly', async () => {
    const issuer = 'https://tenant.eu.auth0.com/'
    const routes = {
      'https://tenant.eu.auth0.com/.well-known/openid-configuration': () =>
        jsonResponse(oidcDocument(issuer, 'https://tenant.eu.auth0.com')),
    }
    const { discovery, jwks } = shared(routes, [issuer])
    expect(
      (await discoverAuth0OidcProvider({ ...CLIENT, discovery, jwks, domain: 'tenant.eu.auth0.com' })).issuer,
    ).toBe(issuer)
    const withoutSlash = shared(
      {
        'https://tenant.eu.auth0.com/.well-known/openid-configuration': () =>
          jsonResponse(oidcDocument('https://tenant.eu.auth0.com', 'https://tenant.eu.auth0.com')),
      },
      [issuer],
    )
    await expect(
      discoverAuth0OidcProvider({
        ...CLIENT,
        discovery: withoutSlash.discovery,
        jwks: withoutSlash.jwks,
        domain: 'tenant.eu.auth0.com',
      }),
    ).rejects.toMatchObject({ reason: 'issuer-mismatch' })
  })

  it('Keycloak realm issuer is <baseUrl>/realms/<realm>', async () => {
    const issuer = 'https://sso.example.com/realms/staff'
    const { discovery, jwks } = shared(
      {
        [`${issuer}/.well-known/openid-configuration`]: () =>
          jsonResponse(oidcDocument(issuer, `${issuer}/protocol/openid-connect`)),
      },
      [issuer],
    )
    const provider = await discoverKeycloakOidcProvider({
      ...CLIENT,
      discovery,
      jwks,
      baseUrl: 'https://sso.example.com/',
      realm: 'staff',
    })
    expect(provider.issuer).toBe(issuer)
    await expect(
      discoverKeycloakOidcProvider({
        ...CLIENT,
        discovery,
        jwks,
        baseUrl: 'https://sso.example.com',
        realm: 'a/b',
      }),
    ).rejects.toMatchObject({ code: 'oidc.provider.realm_invalid' })
  })
})

describe('Microsoft Entra ID tenants', () => {
  const ENTRA = 'https://login.microsoftonline.com'
  const TEMPLATE = `${ENTRA}/{tenantid}/v2.0`
  const T1 = '11111111-1111-4111-8111-111111111111'
  const T2 = '22222222-2222-4222-8222-222222222222'
  let key: CryptoKey
  let jwk: Record<string, unknown>
  let nextIdToken: (nonce: string) => Promise<string>

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256')
    key = pair.privateKey
    jwk = { ...(await exportJWK(pair.publicKey)), kid: 'entra-1', alg: 'RS256', use: 'sig' }
  })

  function entraRoutes(tenant: string, documentIssuer: string): Record<string, Route> {
    let lastNonce = ''
    const base = `${ENTRA}/${tenant}`
    return {
      [`${base}/v2.0/.well-known/openid-configuration`]: () =>
        jsonResponse({
          ...oidcDocument(documentIssuer, `${base}/oauth2/v2.0`),
          jwks_uri: `${base}/discovery/v2.0/keys`,
          userinfo_endpoint: 'https://graph.microsoft.com/oidc/userinfo',
        }),
      [`${base}/discovery/v2.0/keys`]: () => jsonResponse({ keys: [jwk] }),
      [`${base}/oauth2/v2.0/authorize`]: ({ url }) => {
        lastNonce = new URL(url).searchParams.get('nonce') ?? ''
        return new Response(null, { status: 204 })
      },
      [`${base}/oauth2/v2.0/token`]: async () =>
        jsonResponse({
          access_token: 'access-token-value',
          token_type: 'Bearer',
          expires_in: 3600,
          id_token: await nextIdToken(lastNonce),
        }),
    }
  }

  function idToken(tid: string, iss: string) {
    return (nonce: string) => {
      const now = Math.floor(Date.now() / 1000)
      return new SignJWT({
        tid,
        nonce,
        sub: 'pairwise-subject',
        aud: CLIENT.clientId,
        iss,
        iat: now,
        exp: now + 3600,
      })
        .setProtectedHeader({ alg: 'RS256', kid: 'entra-1', typ: 'JWT' })
        .sign(key)
    }
  }

  async function signIn(tenant: string, options: { allowedTenants?: string[] } = {}) {
    const documentIssuer =
      tenant === 'common' || tenant === 'organizations' ? TEMPLATE : `${ENTRA}/${tenant}/v2.0`
    const routes = entraRoutes(tenant, documentIssuer)
    const network = scriptedNetwork(routes)
    const discovery = new OIDCDiscoveryClient({
      allowedIssuers: [`${ENTRA}/${tenant}/v2.0`],
      fetch: network.fetch,
      resolveHost: network.resolveHost,
    })
    const jwks = new CachedJWKSProvider({ fetcher: createFetchJWKSFetcher({ fetch: discovery.fetch }) })
    const provider = await discoverMicrosoftOidcProvider({ ...CLIENT, discovery, jwks, tenant, ...options })
    const protector = testProtector()
    const { lifecycle } = lifecycleFor(
      [
        {
          provider,
          accounts: accountStore(protector, 'microsoft', CLIENT.clientId),
          redirectUri: CALLBACK,
          provisionUnknown: true,
        },
      ],
      protector,
    )
    const begun = await lifecycle.begin({ operation: 'login', provider: 'microsoft' })
    await network.fetch(begun.redirectUrl, {})
    const state = new URL(begun.redirectUrl).searchParams.get('state') as string
    return lifecycle.complete({
      provider: 'microsoft',
      callback: `?code=authorization-code&state=${state}`,
      browserBinding: begun.browserBinding,
    })
  }

  async function refusal(promise: Promise<unknown>): Promise<string> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(OIDCError)
    return (error as OIDCError).reason
  }

  it('common: accepts each tenant under its own issuer', async () => {
    nextIdToken = idToken(T1, `${ENTRA}/${T1}/v2.0`)
    const outcome = await signIn('common')
    expect(outcome.operation === 'login' && outcome.identity.issuer).toBe(`${ENTRA}/${T1}/v2.0`)
    nextIdToken = idToken(T2, `${ENTRA}/${T2}/v2.0`)
    const other = await signIn('common')
    expect(other.operation === 'login' && other.identity.issuer).toBe(`${ENTRA}/${T2}/v2.0`)
  })

  it('common: refuses an iss that does not match the token tid', async () => {
    nextIdToken = idToken(T1, `${ENTRA}/${T2}/v2.0`)
    expect(await refusal(signIn('common'))).toMatch(/^id-token-iss/)
  })

  it('common with allowedTenants: refuses other tenants', async () => {
    nextIdToken = idToken(T2, `${ENTRA}/${T2}/v2.0`)
    expect(await refusal(signIn('common', { allowedTenants: [T1] }))).toBe('id-token-tenant')
  })

  it('organizations: refuses the consumer tenant', async () => {
    nextIdToken = idToken(MICROSOFT_CONSUMER_TENANT, `${ENTRA}/${MICROSOFT_CONSUMER_TENANT}/v2.0`)
    expect(await refusal(signIn('organizations'))).toBe('id-token-tenant')
  })

  it('a pinned tenant accepts only its own issuer', async () => {
    nextIdToken = idToken(T1, `${ENTRA}/${T1}/v2.0`)
    expect((await signIn(T1)).operation).toBe('login')
    nextIdToken = idToken(T2, `${ENTRA}/${T2}/v2.0`)
    expect(await refusal(signIn(T1))).toMatch(/^id-token-iss/)
  })

  it('common: the discovery document must carry the {tenantid} template exactly', async () => {
    const routes = entraRoutes('common', `${ENTRA}/common/v2.0`)
    const network = scriptedNetwork(routes)
    const discovery = new OIDCDiscoveryClient({
      allowedIssuers: [`${ENTRA}/common/v2.0`],
      fetch: network.fetch,
      resolveHost: network.resolveHost,
    })
    const jwks = new CachedJWKSProvider()
    await expect(
      discoverMicrosoftOidcProvider({ ...CLIENT, discovery, jwks, tenant: 'common' }),
    ).rejects.toMatchObject({
      reason: 'issuer-mismatch',
    })
    await expect(
      discoverMicrosoftOidcProvider({ ...CLIENT, discovery, jwks, tenant: 'contoso.onmicrosoft.com' }),
    ).rejects.toMatchObject({ code: 'oidc.provider.tenant_invalid' })
  })
})
