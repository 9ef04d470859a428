export type { AuthenticationMechanism, CredentialSource, SecuritySchemeDescription } from './mechanism.js'
export type { AuthenticationChallenge, AuthenticationOutcome } from './outcome.js'
export { authenticated, invalid, none, unavailable } from './outcome.js'
export type { AuthenticationEvidence, CredentialRestrictions, Impersonator, Principal } from './principal.js'
