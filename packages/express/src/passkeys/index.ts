// Passkey routes over HTTP: list, rename and remove the account's passkeys, and the passkey step-up that
// earns the one-use step-up credential.
export { PASSKEY_BINDING_COOKIE } from './binding-cookie.js'
export type { PasskeyRoutesOptions } from './routes.js'
export { createPasskeyRoutes, PASSKEY_REMOVE_PURPOSE } from './routes.js'
