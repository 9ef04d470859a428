import type { ApiKeyRecord } from '../../src/api-keys/api-key-record.js'
import type { ApiKeyRotation, ApiKeyStore, ApiKeyUsage } from '../../src/api-keys/api-key-store.js'
import { MemoryApiKeyStore } from '../../src/api-keys/memory-api-key-store.js'

/** A real memory store wrapped to count lookups and to simulate an outage on demand. */
export class InstrumentedApiKeyStore implements ApiKeyStore {
  readonly inner: MemoryApiKeyStore
  lookups = 0
  usageWrites: ApiKeyUsage[][] = []
  down = false
  usageDown = false
  /** Alters what `get` answers, as an out-of-band edit of the stored row would. */
  rewrite: ((record: ApiKeyRecord) => ApiKeyRecord) | undefined

  constructor(inner = new MemoryApiKeyStore()) {
    this.inner = inner
  }

  async get(keyId: string): Promise<ApiKeyRecord | undefined> {
    this.lookups++
    if (this.down) throw new Error('connection refused')
    const record = this.inner.get(keyId)
    return record === undefined || this.rewrite === undefined ? record : this.rewrite(record)
  }
  create(record: ApiKeyRecord): Promise<void> {
    return this.inner.create(record)
  }
  rotate(rotation: ApiKeyRotation): Promise<void> {
    return this.inner.rotate(rotation)
  }
  revoke(keyId: string, now: Date): Promise<void> {
    return this.inner.revoke(keyId, now)
  }
  async recordUsage(usage: readonly ApiKeyUsage[]): Promise<void> {
    if (this.usageDown) throw new Error('usage table locked')
    this.usageWrites.push([...usage])
    return this.inner.recordUsage(usage)
  }
}
