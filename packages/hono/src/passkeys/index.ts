// Passkey routes for Hono: list, register and sign in with passkeys, rename and remove them, and the
// passkey step-up that earns the one-use step-up credential.
export {
  PASSKEY_BINDING_COOKIE,
  PASSKEY_REGISTER_PURPOSE,
  PASSKEY_REMOVE_PURPOSE,
} from '@portcullis/http/passkeys'
export type { PasskeyRoutesOptions } from './routes.js'
export { passkeyRoutes } from './routes.js'
