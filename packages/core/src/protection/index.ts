export type { OAuthTransactionProtector, ProtectedEnvelope } from './protector.js'
export { ProtectedEnvelopeError } from './protector.js'
