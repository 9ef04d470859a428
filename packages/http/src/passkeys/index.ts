// Passkeys over HTTP for any framework: the route table (list, register, sign in, rename, remove, step up),
// its OpenAPI entries and the browser-binding cookie of the ceremonies.
export { browserBindingCookie, browserBindingFrom, PASSKEY_BINDING_COOKIE } from './binding-cookie.js'
export { PASSKEY_ROUTE_DOCS } from './openapi.js'
export type { PasskeyRouteTableOptions } from './routes.js'
export {
  PASSKEY_AMR,
  PASSKEY_REGISTER_PURPOSE,
  PASSKEY_REMOVE_PURPOSE,
  PASSKEY_ROUTE_TABLE_OPTIONS,
  passkeyRouteTable,
  passkeyView,
} from './routes.js'
