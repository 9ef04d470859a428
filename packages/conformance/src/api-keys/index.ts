export type { ApiKeyDirectoryFactory, ApiKeyDirectoryFixture } from './api-key-directory-conformance.js'
export {
  apiKeyDirectoryConformanceSuite,
  assertApiKeyDirectoryConformance,
} from './api-key-directory-conformance.js'
export type { ApiKeyStoreConformanceOptions, ApiKeyStoreFactory } from './api-key-store-conformance.js'
export {
  apiKeyStoreConformanceSuite,
  assertApiKeyStoreConformance,
  sampleApiKeyRecord,
} from './api-key-store-conformance.js'
