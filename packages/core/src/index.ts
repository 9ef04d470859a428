export type {
  AuthenticationEvidence,
  AuthenticationMechanism,
  AuthenticationOutcome,
  CredentialRestrictions,
  CredentialSource,
  Principal,
  SecuritySchemeDescription,
} from './authentication/index.js'
export { authenticated, invalid, none, unavailable } from './authentication/index.js'
export type { ErrorClass, PortcullisErrorOptions } from './errors/index.js'
export { ConfigurationError, InvalidInputError, isPortcullisError, PortcullisError } from './errors/index.js'
export type { OAuthTransactionProtector, ProtectedEnvelope } from './protection/index.js'
export { ProtectedEnvelopeError } from './protection/index.js'
