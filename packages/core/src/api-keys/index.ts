export type {
  ApiKeyDirectory,
  ApiKeyListOptions,
  ApiKeyListRequest,
  ApiKeyOwner,
  ApiKeySummary,
} from './api-key-directory.js'
export { apiKeySummary, requireApiKeyListRequest } from './api-key-directory.js'
export type { ApiKeyErrorCode } from './api-key-error.js'
export { ApiKeyError } from './api-key-error.js'
export { formatApiKey, parseApiKey } from './api-key-format.js'
export type { ApiKeyMechanismOptions } from './api-key-mechanism.js'
export { apiKey } from './api-key-mechanism.js'
export type { ApiKeyPepper } from './api-key-pepper.js'
export { ApiKeyPepperRing, decodeApiKeyPepper } from './api-key-pepper.js'
export type { ApiKeyLifetime, ApiKeyRecord, ApiKeyStatus } from './api-key-record.js'
export { apiKeyStatus, assertApiKeyRecord } from './api-key-record.js'
export type {
  ApiKeyServiceOptions,
  ApiKeyVerification,
  IssueApiKeyRequest,
  RotateApiKeyRequest,
} from './api-key-service.js'
export { ApiKeyService } from './api-key-service.js'
export type { ApiKeyRotation, ApiKeyStore, ApiKeyUsage } from './api-key-store.js'
export type { ApiKeyUsageRecorderOptions, ApiKeyUsageStats } from './api-key-usage-recorder.js'
export { ApiKeyUsageRecorder } from './api-key-usage-recorder.js'
export { IssuedApiKey } from './issued-api-key.js'
export type { MemoryApiKeyStoreOptions } from './memory-api-key-store.js'
export { MemoryApiKeyStore } from './memory-api-key-store.js'
