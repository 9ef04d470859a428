// Account routes for any framework: the account overview, password step-up, adding and removing the
// password, account deletion.
export { fieldsOf, localPath as accountLocalPath, methodBody } from './bodies.js'
export { ACCOUNT_ROUTE_DOCS } from './openapi.js'
export type { AccountRouteTableOptions } from './routes.js'
export { ACCOUNT_ROUTE_TABLE_OPTIONS, accountRouteTable } from './routes.js'
