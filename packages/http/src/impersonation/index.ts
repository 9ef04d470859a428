// Impersonation routes for any framework: start (administrators, step-up and reason), end, and the current state.
export { IMPERSONATION_ROUTE_DOCS } from './openapi.js'
export type { ImpersonationRouteTableOptions } from './routes.js'
export { IMPERSONATION_ROUTE_TABLE_OPTIONS, impersonationRouteTable } from './routes.js'
