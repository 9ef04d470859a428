export type { ApiKeyStoreConformanceOptions, ApiKeyStoreFactory } from './api-key-store-conformance.js'
export {
  apiKeyStoreConformanceSuite,
  assertApiKeyStoreConformance,
  sampleApiKeyRecord,
} from './api-key-store-conformance.js'
