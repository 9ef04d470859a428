// The whole public API of @portcullis/core: every capability subpath (`@portcullis/core/protection`,
// `/policy`, ...) re-exported unchanged. The names themselves are listed where they belong, in each
// subpath's index; the subpaths stay for narrow imports, and `sideEffects: false` lets bundlers drop
// what an application does not use. OAuth keeps its namespaces (`accounts`, `transactions`) as on
// `@portcullis/core/oauth`. No two subpaths may export the same name (a star export would drop it):
// test/public-api.test.ts checks that the root and the subpaths agree, name by name, and
// api-surface.json records every name for review.
export * from './account-email/index.js'
export * from './accounts/index.js'
export * from './administration/index.js'
export * from './api-keys/index.js'
export * from './authentication/index.js'
export * from './authorization/index.js'
export * from './authorization-server/index.js'
export * from './codes/index.js'
export * from './dpop/index.js'
export * from './errors/index.js'
export * from './iap/index.js'
export * from './impersonation/index.js'
export * from './instrumentation/index.js'
export * from './jwks/index.js'
export * from './local-accounts/index.js'
export * from './mail/index.js'
export * from './mcp/index.js'
export * from './oauth/index.js'
export * from './oidc/index.js'
export * from './organization-domains/index.js'
export * from './organizations/index.js'
export * from './passkeys/index.js'
export * from './policy/index.js'
export * from './protection/index.js'
export * from './revocation/index.js'
export * from './security-log/index.js'
export * from './step-up/index.js'
export * from './totp/index.js'
export * from './workload-jwt/index.js'
