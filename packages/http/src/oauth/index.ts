// OAuth / OIDC routes for any framework: sign-in, linking, scope upgrade, unlink, token revocation,
// logout, revalidate and reauthenticate, over the lifecycle of `@portcullis/core/oidc`.
export { OAUTH_BODY_LIMIT, queryObject } from './begin-routes.js'
export { OAUTH_NOT_FOUND } from './http.js'
export type { OAuthRouteTableOptions, OAuthSignIn, StepUpTransport } from './options.js'
export { OAUTH_ROUTE_OPTIONS } from './options.js'
export { oauthRouteTable } from './routes.js'
export type { EvaluatingSecurity } from './session.js'
export { localSessionOf, localSessionReader } from './session.js'
