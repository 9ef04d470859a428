// Local accounts over HTTP for any framework: the generated route table, the CSRF rules, sign-in helpers.
export type { CsrfInput } from './csrf.js'
export { localCsrf } from './csrf.js'
export { LOCAL_ROUTE_DOCS } from './openapi.js'
export { localProblem } from './problem.js'
export type { LocalRouteTableOptions } from './routes.js'
export { LOCAL_ROUTE_TABLE_OPTIONS, localPath, localRouteTable, sessionBody } from './routes.js'
export type { EpochChange, SignInRequest } from './sign-in.js'
export { establishSignIn, renewSignIn, rotateSession } from './sign-in.js'
