// The OAuth browser-binding cookie and the per-purpose step-up cookies.
export type { OAuthCookieOptions } from './cookies.js'
export { OAUTH_COOKIE_OPTIONS, OAuthBindingCookie, StepUpCookies } from './cookies.js'
