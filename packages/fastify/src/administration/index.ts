// The administration routes over HTTP: search, view, disable, enable, sign out everywhere, revoke an API
// key or grant, require a password reset, delete; administrators only, each change behind a fresh step-up.
export type { AdministrationRoutesOptions } from './routes.js'
export { administrationRoutes } from './routes.js'
