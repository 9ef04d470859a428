// Account administration over HTTP for any framework: the route table (search, view, disable, enable,
// sign out everywhere, revoke an API key or grant, require a password reset, delete) behind the
// administrator guard and a fresh step-up, and its OpenAPI entries.
export { accountViewBody, outcomeBody, searchHitBody } from './bodies.js'
export { ADMINISTRATION_ROUTE_DOCS } from './openapi.js'
export type { AdministrationRouteTableOptions } from './routes.js'
export { ADMINISTRATION_ROUTE_TABLE_OPTIONS, administrationRouteTable } from './routes.js'
