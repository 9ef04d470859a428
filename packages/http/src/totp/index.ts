// TOTP over HTTP for any framework: the route table (status, enrollment, confirmation, recovery codes,
// turning it off) and its OpenAPI entries. The second sign-in step is a local-account route.
export { TOTP_ROUTE_DOCS } from './openapi.js'
export type { TotpRouteTableOptions } from './routes.js'
export {
  TOTP_DISABLE_PURPOSE,
  TOTP_ENROLL_PURPOSE,
  TOTP_RECOVERY_CODES_PURPOSE,
  TOTP_ROUTE_TABLE_OPTIONS,
  totpRouteTable,
} from './routes.js'
