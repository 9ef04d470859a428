// The local-account routes on Hono: sign-in, sessions, tokens, sign-up, password reset, the CSRF check.

export { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '@portcullis/http/body'
export type { EpochChange } from '@portcullis/http/local-accounts'
export type { LocalAccountRoutes, LocalAccountRoutesOptions } from './routes.js'
export { localAccountRoutes } from './routes.js'
