import type { AuthenticationOutcome } from './outcome.js'

/**
 * The framework-neutral view of an incoming request that mechanisms read credentials from.
 * Adapters build it once per request. Header names are lower case.
 */
export interface CredentialSource {
  header(name: string): string | undefined
  cookie(name: string): string | undefined
  readonly method: string
  /** Path without query string. */
  readonly path: string
}

/**
 * A registered authentication mechanism. Registering makes it available; route policy decides where it is
 * accepted. `authenticate` is called at most once per request (every configured slot is extracted once)
 * and must not throw for bad credentials: it returns `invalid`. Throwing is treated as `unavailable`.
 * Answer synchronously when the request carries no credential for this mechanism (or a cached verdict
 * settles it): every configured mechanism runs on every request, so the absent case is the common one.
 */
export interface AuthenticationMechanism {
  /** Unique name used by route policy (`required('api-key')`). */
  readonly name: string
  /** Whether `required()` with no names accepts this mechanism. Default true. */
  readonly default?: boolean
  /** For OpenAPI: how the credential travels. */
  readonly securityScheme: SecuritySchemeDescription
  authenticate(source: CredentialSource): AuthenticationOutcome | Promise<AuthenticationOutcome>
}

/** An OpenAPI 3.1 security scheme object, described without depending on an OpenAPI library. */
export type SecuritySchemeDescription =
  | {
      readonly type: 'http'
      readonly scheme: 'bearer' | 'basic'
      readonly bearerFormat?: string
      readonly description?: string
    }
  | {
      readonly type: 'apiKey'
      readonly in: 'header' | 'cookie' | 'query'
      readonly name: string
      readonly description?: string
    }
  | { readonly type: 'openIdConnect'; readonly openIdConnectUrl: string; readonly description?: string }
  | {
      readonly type: 'oauth2'
      readonly flows: Readonly<Record<string, unknown>>
      readonly description?: string
    }
