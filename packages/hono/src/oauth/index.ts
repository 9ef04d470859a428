// OAuth / OIDC routes for Hono: sign-in, linking, scope upgrade, unlink, token revocation, logout,
// revalidate and reauthenticate, over the framework-neutral route table of `@portcullis/http/oauth`.
export type { OAuthCookieOptions } from '@portcullis/http/cookies'
export { OAuthBindingCookie, StepUpCookies } from '@portcullis/http/cookies'
export type { OAuthEpochChange, OAuthSignIn } from '@portcullis/http/oauth'
export { localSessionOf, OAUTH_MAX_BODY_BYTES, OAUTH_NOT_FOUND } from '@portcullis/http/oauth'
export type { CurrentSession, OAuthRoutesOptions } from './routes.js'
export { createOAuthRoutes, currentLocalSession } from './routes.js'
