// OAuth / OIDC routes for Express: sign-in, linking, scope upgrade, unlink, token revocation, logout,
// revalidate and reauthenticate, over the framework-neutral lifecycle of `@portcullis/core/oidc`.
export type { OAuthCookieOptions } from '@portcullis/http/cookies'
export { OAuthBindingCookie, StepUpCookies } from '@portcullis/http/cookies'
export { OAUTH_NOT_FOUND } from './http.js'
export type { CurrentSession, OAuthRoutesOptions, OAuthSignIn } from './options.js'
export { createOAuthRoutes } from './routes.js'
export { currentLocalSession, localSessionOf } from './session.js'
