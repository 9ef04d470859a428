// OAuth / OIDC routes for Express: sign-in, linking, scope upgrade, unlink, token revocation, logout,
// revalidate and reauthenticate, over the framework-neutral route table of `@portcullis/http/oauth`.
export type { OAuthCookieOptions } from '@portcullis/http/cookies'
export { OAuthBindingCookie, StepUpCookies } from '@portcullis/http/cookies'
export { OAUTH_NOT_FOUND } from '@portcullis/http/oauth'
export type { CurrentSession, OAuthRoutesOptions, OAuthSignIn } from './options.js'
export { createOAuthRoutes } from './routes.js'
export { currentLocalSession, localSessionOf } from './session.js'
