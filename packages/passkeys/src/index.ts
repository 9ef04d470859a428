// The WebAuthn ceremonies (`@simplewebauthn/server`): registration of passkeys to a signed-in account,
// sign-in with discoverable credentials, and step-up. The store ports, their memory implementations and
// `PasskeyStepUp` are `@portcullis/core/passkeys`.
export type { PasskeyServiceOptions } from './service.js'
export { PasskeyService } from './service.js'
