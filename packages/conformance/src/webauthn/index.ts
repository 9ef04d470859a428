// A software WebAuthn authenticator for tests: packed attestation, ES256, a signature counter and flags a
// test controls, so ceremonies (valid, wrong origin, wrong RP ID, counter regression, UV missing) run
// without a browser.
export type { CeremonyOverrides } from './software-authenticator.js'
export { cbor, SoftwareAuthenticator } from './software-authenticator.js'
