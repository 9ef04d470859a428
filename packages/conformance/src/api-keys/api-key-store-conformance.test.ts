import {
  ApiKeyError,
  type ApiKeyRecord,
  type ApiKeyRotation,
  type ApiKeyStore,
  type ApiKeyUsage,
  MemoryApiKeyStore,
} from '@portcullis/core/api-keys'
import { describe, expect, it } from 'vitest'
import { describeConformance } from '../bindings/vitest.js'
import { ConformanceViolation, runSuite } from '../suite/suite.js'
import { apiKeyStoreConformanceSuite, assertApiKeyStoreConformance } from './api-key-store-conformance.js'

type Flaw =
  | 'non-atomic-rotate'
  | 'duplicate-overwrites'
  | 'live-references'
  | 'revoke-keeps-overlap'
  | 'unclamped-overlap'
  | 'usage-goes-backwards'
  | 'partial-rotate'
  | 'untyped-errors'

/** A store written the naive way, with one deliberate flaw switched on. */
class FlawedStore implements ApiKeyStore {
  readonly #records = new Map<string, ApiKeyRecord>()
  constructor(private readonly flaw: Flaw) {}

  #copy(record: ApiKeyRecord): ApiKeyRecord {
    return this.flaw === 'live-references' ? record : structuredClone(record)
  }
  #fail(code: ConstructorParameters<typeof ApiKeyError>[0]): never {
    if (this.flaw === 'untyped-errors') throw new Error('something went wrong')
    throw new ApiKeyError(code, code)
  }

  async get(keyId: string) {
    const record = this.#records.get(keyId)
    return record === undefined ? undefined : this.#copy(record)
  }
  async create(record: ApiKeyRecord) {
    if (this.#records.has(record.keyId) && this.flaw !== 'duplicate-overwrites')
      this.#fail('api_key.duplicate_key_id')
    this.#records.set(record.keyId, this.#copy(record))
  }
  async rotate({ currentKeyId, replacement, overlapUntil, now }: ApiKeyRotation) {
    const current = this.#records.get(currentKeyId)
    if (current === undefined) this.#fail('api_key.not_found')
    const expired = current.expiresAt !== undefined && now >= current.expiresAt
    if (current.revokedAt !== undefined || expired) this.#fail('api_key.not_active')
    if (this.flaw === 'non-atomic-rotate') await new Promise((resolve) => setTimeout(resolve, 5))
    const clamp =
      overlapUntil !== undefined &&
      current.expiresAt !== undefined &&
      current.expiresAt < overlapUntil &&
      this.flaw !== 'unclamped-overlap'
        ? current.expiresAt
        : overlapUntil
    const revoked = { ...current, revokedAt: now, ...(clamp === undefined ? {} : { overlapUntil: clamp }) }
    if (this.flaw === 'partial-rotate') this.#records.set(currentKeyId, revoked)
    if (this.#records.has(replacement.keyId)) this.#fail('api_key.duplicate_key_id')
    this.#records.set(currentKeyId, revoked)
    this.#records.set(replacement.keyId, this.#copy(replacement))
  }
  async revoke(keyId: string, now: Date) {
    const current = this.#records.get(keyId)
    if (current === undefined) this.#fail('api_key.not_found')
    const { overlapUntil, ...rest } = current
    const revokedAt = current.revokedAt !== undefined && current.revokedAt < now ? current.revokedAt : now
    const keep = this.flaw === 'revoke-keeps-overlap' && overlapUntil !== undefined ? { overlapUntil } : {}
    this.#records.set(keyId, { ...rest, revokedAt, ...keep })
  }
  async recordUsage(usage: readonly ApiKeyUsage[]) {
    for (const { keyId, usedAt } of usage) {
      const current = this.#records.get(keyId)
      if (current === undefined) continue
      if (
        this.flaw !== 'usage-goes-backwards' &&
        current.lastUsedAt !== undefined &&
        current.lastUsedAt >= usedAt
      )
        continue
      this.#records.set(keyId, { ...current, lastUsedAt: usedAt })
    }
  }
}

describeConformance(apiKeyStoreConformanceSuite(() => new MemoryApiKeyStore()))

describe('ApiKeyStore conformance self-tests', () => {
  it('passes the reference memory store and disposes every context', async () => {
    const disposed: ApiKeyStore[] = []
    const suite = apiKeyStoreConformanceSuite(() => new MemoryApiKeyStore(), {
      dispose: (store) => void disposed.push(store),
    })
    const results = await runSuite(suite)
    expect(results.filter((result) => !result.passed)).toEqual([])
    expect(disposed).toHaveLength(suite.cases.length)
    await expect(assertApiKeyStoreConformance(() => new MemoryApiKeyStore())).resolves.toBeUndefined()
  })

  it.each([
    ['non-atomic-rotate', ['api-keys.rotate-race']],
    ['duplicate-overwrites', ['api-keys.duplicate-create']],
    ['live-references', ['api-keys.isolation']],
    ['revoke-keeps-overlap', ['api-keys.revoke']],
    ['unclamped-overlap', ['api-keys.rotate-clamp']],
    ['usage-goes-backwards', ['api-keys.usage']],
    ['partial-rotate', ['api-keys.rotate-refusals']],
    [
      'untyped-errors',
      ['api-keys.duplicate-create', 'api-keys.rotate-refusals', 'api-keys.rotate-race', 'api-keys.revoke'],
    ],
  ] satisfies [Flaw, string[]][])('catches a store with the flaw %s', async (flaw, expected) => {
    const results = await runSuite(apiKeyStoreConformanceSuite(() => new FlawedStore(flaw)))
    const failed = results.filter((result) => !result.passed)
    expect(failed.map((result) => result.id)).toEqual(expected)
    for (const result of failed) expect(result.error).toBeInstanceOf(ConformanceViolation)
    await expect(assertApiKeyStoreConformance(() => new FlawedStore(flaw))).rejects.toThrow(expected[0] ?? '')
  })
})
