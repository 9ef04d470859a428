export type { AESGCMProtectorOptions } from './aes-gcm-protector.js'
export {
  AES_GCM_NONCE_BYTES,
  AES_GCM_TAG_BYTES,
  AESGCMOAuthTransactionProtector,
  MAX_PLAINTEXT_BYTES,
  ProtectorEntropyError,
} from './aes-gcm-protector.js'
export type { AssociatedDataPart } from './associated-data.js'
export { associatedData, MAX_ASSOCIATED_DATA_BYTES } from './associated-data.js'
export { MAX_ENVELOPE_BYTES, parseProtectedEnvelope, serializeProtectedEnvelope } from './envelope-format.js'
export type {
  EnvelopeHolding,
  EnvelopeInventory,
  EnvelopeInventoryReport,
  EnvelopeLocationCount,
  EnvelopeTally,
} from './inventory.js'
export {
  emptyTally,
  envelopesByKeyVersion,
  envelopesUnder,
  tallyEnvelope,
  unreadableEnvelopes,
} from './inventory.js'
export { OAuthTransactionProtectorKey, PROTECTOR_KEY_BYTES } from './key.js'
export type { KeyMaterialEncoding, LoadProtectorKeyOptions } from './key-loading.js'
export { loadOAuthTransactionProtectorKey } from './key-loading.js'
export type { EnvelopeCounting, MemoryEnvelopeInventoryOptions } from './memory-inventory.js'
export { MemoryEnvelopeInventory } from './memory-inventory.js'
export type { OAuthTransactionProtector, ProtectedEnvelope } from './protector.js'
export { ProtectedEnvelopeError } from './protector.js'
