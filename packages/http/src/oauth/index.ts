// OAuth / OIDC routes for any framework: sign-in, linking, scope upgrade, unlink, token revocation,
// logout, revalidate and reauthenticate, over the lifecycle of `@portcullis/core/oidc`.
export { queryObject } from './begin-routes.js'
export { OAUTH_NOT_FOUND } from './http.js'
export type { OAuthEpochChange, OAuthRouteTableOptions, OAuthSignIn, StepUpTransport } from './options.js'
export { OAUTH_MAX_BODY_BYTES, OAUTH_ROUTE_OPTIONS } from './options.js'
export { oauthRouteTable } from './routes.js'
export type { EvaluatingSecurity } from './session.js'
export { localSessionOf, localSessionReader } from './session.js'
