// Your own ApiKeyStore must pass the conformance suite: one vitest test per invariant.

// #region api-keys
import {
  apiKeyDirectoryConformanceSuite,
  apiKeyStoreConformanceSuite,
} from '@portcullis/conformance/api-keys'
import { describeConformance } from '@portcullis/conformance/vitest'
import { MemoryApiKeyStore } from '@portcullis/core/api-keys'

// Replace MemoryApiKeyStore with your implementation; pass `dispose` to clean up after each case.
describeConformance(apiKeyStoreConformanceSuite(() => new MemoryApiKeyStore()))

// Listing (the ApiKeyDirectory port): the store creates the records the directory must list.
describeConformance(
  apiKeyDirectoryConformanceSuite(() => {
    const store = new MemoryApiKeyStore()
    return { store, directory: store }
  }),
)
// #endregion api-keys
