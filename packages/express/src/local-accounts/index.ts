// Local accounts over HTTP: the generated `{base}/auth/...` routes and the CSRF guard in front of them.
export { LOCAL_ACCOUNTS_MAX_BODY_BYTES } from '@portcullis/http/body'
export type { LocalAccountRoutes, LocalAccountRoutesOptions } from './routes.js'
export { localAccountRoutes } from './routes.js'
