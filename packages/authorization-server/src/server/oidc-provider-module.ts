import type * as OidcProvider from 'oidc-provider'

/** The oidc-provider module: the `Provider` class (`default`), `errors` and `interactionPolicy`. */
export type OidcProviderModule = typeof OidcProvider

/**
 * Loads oidc-provider when the first server is created, not when this package is imported: importing
 * the package has no side effects (oidc-provider announces on the console, at import, that it prefers a
 * newer Node.js than 20).
 */
export function loadOidcProvider(): Promise<OidcProviderModule> {
  return import('oidc-provider')
}
