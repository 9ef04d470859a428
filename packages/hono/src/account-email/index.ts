// The account email routes over HTTP: sign-up with verification, email verification, password reset.
export type { AccountEmailRoutesOptions } from './routes.js'
export { accountEmailRoutes } from './routes.js'
