import { type OptionsShape, readOptions } from '../errors/options.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { buildOidcProvider, COMMON_OPTIONS, type OidcProviderCommonOptions } from './discover.js'
import { normalizeIssuer } from './issuer-url.js'
import type { OIDCProvider } from './oidc-provider.js'

/** Every preset may rename its registration (two Google clients, say); the default is the IdP's name. */
interface Named {
  readonly name?: string
}

const NAMED = { name: { kind: 'string' } } as const

export const GOOGLE_ISSUER = 'https://accounts.google.com'
/** Google publishes its keys and OAuth endpoints on other origins than the issuer's. */
const GOOGLE_JWKS_ORIGINS = ['https://www.googleapis.com']
const GOOGLE_ENDPOINT_ORIGINS = ['https://oauth2.googleapis.com', 'https://openidconnect.googleapis.com']

export interface GoogleOidcProviderOptions extends OidcProviderCommonOptions, Named {
  /** Ask for a refresh token (`access_type=offline`). Default false. */
  readonly offlineAccess?: boolean
}

/** Google: issuer `https://accounts.google.com`, keys on www.googleapis.com, tokens on oauth2.googleapis.com. */
export async function discoverGoogleOidcProvider(options: GoogleOidcProviderOptions): Promise<OIDCProvider> {
  readOptions(options, 'discoverGoogleOidcProvider', {
    ...COMMON_OPTIONS,
    ...NAMED,
    offlineAccess: { kind: 'boolean' },
  } satisfies OptionsShape<GoogleOidcProviderOptions>)
  return buildOidcProvider(options, {
    name: options.name ?? 'google',
    issuer: GOOGLE_ISSUER,
    discover: { jwksOrigins: GOOGLE_JWKS_ORIGINS, endpointOrigins: GOOGLE_ENDPOINT_ORIGINS },
    ...(options.offlineAccess === true ? { extraParameters: { access_type: 'offline' } } : {}),
  })
}

const ENTRA = 'https://login.microsoftonline.com'
const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
/** The tenant of personal Microsoft accounts. */
export const MICROSOFT_CONSUMER_TENANT = '9188040d-6c67-4c5b-b112-36a304b66dad'

export interface MicrosoftOidcProviderOptions extends OidcProviderCommonOptions, Named {
  /**
   * `common` (work, school and personal accounts), `organizations` (work and school), `consumers`, or a
   * tenant id (GUID) to pin one directory.
   */
  readonly tenant: string
  /** For `common`/`organizations`: accept only ID tokens of these tenant ids. */
  readonly allowedTenants?: readonly string[]
}

/**
 * Microsoft Entra ID (v2.0 endpoints). A tenant id pins the issuer exactly. `common` and `organizations`
 * publish the template issuer `https://login.microsoftonline.com/{tenantid}/v2.0`: discovery requires that
 * exact template, and each ID token's `iss` must equal the template filled with its own `tid` (a GUID;
 * optionally one of `allowedTenants`; never the consumer tenant for `organizations`). The identity's issuer
 * is then the tenant's own issuer, so the same subject in two tenants is two identities.
 */
export async function discoverMicrosoftOidcProvider(
  options: MicrosoftOidcProviderOptions,
): Promise<OIDCProvider> {
  readOptions(options, 'discoverMicrosoftOidcProvider', {
    ...COMMON_OPTIONS,
    ...NAMED,
    tenant: { required: true, kind: 'string' },
    allowedTenants: { kind: 'array' },
  } satisfies OptionsShape<MicrosoftOidcProviderOptions>)
  const tenant = options.tenant.toLowerCase()
  const allowed = options.allowedTenants?.map((id) => id.toLowerCase())
  if (allowed?.some((id) => !TENANT_ID.test(id))) {
    throw new ConfigurationError('oidc.provider.tenant_invalid', 'allowedTenants must be tenant ids (GUIDs)')
  }
  const name = options.name ?? 'microsoft'
  if (tenant === 'common' || tenant === 'organizations') {
    const template = `${ENTRA}/{tenantid}/v2.0`
    return buildOidcProvider(options, {
      name,
      issuer: `${ENTRA}/${tenant}/v2.0`,
      discover: { documentIssuer: template },
      issuerRule: {
        kind: 'tenant-template',
        template,
        ...(allowed === undefined ? {} : { allowedTenants: new Set(allowed) }),
        ...(tenant === 'organizations' ? { excludedTenants: new Set([MICROSOFT_CONSUMER_TENANT]) } : {}),
      },
    })
  }
  if (allowed !== undefined) {
    throw new ConfigurationError(
      'oidc.provider.tenant_invalid',
      'allowedTenants applies to the common and organizations tenants only',
    )
  }
  if (tenant === 'consumers') {
    return buildOidcProvider(options, {
      name,
      issuer: `${ENTRA}/consumers/v2.0`,
      discover: { documentIssuer: `${ENTRA}/${MICROSOFT_CONSUMER_TENANT}/v2.0` },
    })
  }
  if (!TENANT_ID.test(tenant)) {
    throw new ConfigurationError(
      'oidc.provider.tenant_invalid',
      'tenant must be common, organizations, consumers or a tenant id (GUID)',
    )
  }
  return buildOidcProvider(options, { name, issuer: `${ENTRA}/${tenant}/v2.0`, discover: {} })
}

const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i

function hostname(value: string, what: string): string {
  if (!HOSTNAME.test(value)) {
    throw new ConfigurationError('oidc.provider.domain_invalid', `${what} must be a bare host name`)
  }
  return value.toLowerCase()
}

export interface OktaOidcProviderOptions extends OidcProviderCommonOptions, Named {
  /** Your Okta domain (`example.okta.com` or a custom domain), without scheme or path. */
  readonly domain: string
  /** A custom authorization server (`default`, `aus...`); omitted means the org authorization server. */
  readonly authorizationServerId?: string
}

/** Okta: `https://<domain>/oauth2/<authorizationServerId>`, or the org server `https://<domain>`. */
export async function discoverOktaOidcProvider(options: OktaOidcProviderOptions): Promise<OIDCProvider> {
  readOptions(options, 'discoverOktaOidcProvider', {
    ...COMMON_OPTIONS,
    ...NAMED,
    domain: { required: true, kind: 'string' },
    authorizationServerId: { kind: 'string' },
  } satisfies OptionsShape<OktaOidcProviderOptions>)
  const domain = hostname(options.domain, 'domain')
  const server = options.authorizationServerId
  if (server !== undefined && !/^[A-Za-z0-9]{1,64}$/.test(server)) {
    throw new ConfigurationError('oidc.provider.domain_invalid', 'authorizationServerId must be alphanumeric')
  }
  const issuer = server === undefined ? `https://${domain}` : `https://${domain}/oauth2/${server}`
  return buildOidcProvider(options, { name: options.name ?? 'okta', issuer, discover: {} })
}

export interface Auth0OidcProviderOptions extends OidcProviderCommonOptions, Named {
  /** Your Auth0 tenant or custom domain (`example.eu.auth0.com`). */
  readonly domain: string
}

/** Auth0: issuer `https://<domain>/` (with the trailing slash Auth0 publishes). */
export async function discoverAuth0OidcProvider(options: Auth0OidcProviderOptions): Promise<OIDCProvider> {
  readOptions(options, 'discoverAuth0OidcProvider', {
    ...COMMON_OPTIONS,
    ...NAMED,
    domain: { required: true, kind: 'string' },
  } satisfies OptionsShape<Auth0OidcProviderOptions>)
  const issuer = `https://${hostname(options.domain, 'domain')}/`
  return buildOidcProvider(options, { name: options.name ?? 'auth0', issuer, discover: {} })
}

export interface KeycloakOidcProviderOptions extends OidcProviderCommonOptions, Named {
  /** The server's base URL (`https://sso.example.com` or `https://sso.example.com/auth` for old layouts). */
  readonly baseUrl: string
  readonly realm: string
}

/** Keycloak: issuer `<baseUrl>/realms/<realm>`, exactly. */
export async function discoverKeycloakOidcProvider(
  options: KeycloakOidcProviderOptions,
): Promise<OIDCProvider> {
  readOptions(options, 'discoverKeycloakOidcProvider', {
    ...COMMON_OPTIONS,
    ...NAMED,
    baseUrl: { required: true, kind: 'string' },
    realm: { required: true, kind: 'string' },
  } satisfies OptionsShape<KeycloakOidcProviderOptions>)
  if (!/^[A-Za-z0-9._-]{1,255}$/.test(options.realm) || options.realm.startsWith('.')) {
    throw new ConfigurationError('oidc.provider.realm_invalid', 'realm must be 1-255 of A-Z a-z 0-9 . _ -')
  }
  const base = normalizeIssuer(options.baseUrl.replace(/\/$/, ''), 'baseUrl')
  const issuer = `${base.replace(/\/$/, '')}/realms/${options.realm}`
  return buildOidcProvider(options, { name: options.name ?? 'keycloak', issuer, discover: {} })
}
