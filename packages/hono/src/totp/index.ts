// TOTP routes for Hono: the second-factor state, enrollment and its confirmation, new recovery codes,
// turning TOTP off.
export {
  TOTP_DISABLE_PURPOSE,
  TOTP_ENROLL_PURPOSE,
  TOTP_RECOVERY_CODES_PURPOSE,
} from '@portcullis/http/totp'
export type { TotpRoutesOptions } from './routes.js'
export { totpRoutes } from './routes.js'
