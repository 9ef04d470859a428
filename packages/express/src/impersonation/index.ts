// Impersonation routes over HTTP: an administrator starts and ends acting as another account.
export type { ImpersonationRoutesOptions } from './routes.js'
export { impersonationRoutes } from './routes.js'
