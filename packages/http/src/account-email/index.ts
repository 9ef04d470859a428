// The account email flows over HTTP for any framework: the route table (sign-up with verification,
// email verification, password reset, email change, sign-in by code, notification settings) and its
// OpenAPI entries.
export { ACCOUNT_EMAIL_ROUTE_DOCS, EMAIL_DOCS } from './openapi.js'
export type { AccountEmailRouteContext, AccountEmailRouteTableOptions } from './route-context.js'
export { ACCOUNT_EMAIL_HEADERS, ACCOUNT_EMAIL_ROUTE_TABLE_OPTIONS, accountEmailRouteTable } from './routes.js'
