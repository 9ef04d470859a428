import {
  type ApiKeyDirectory,
  type ApiKeyListOptions,
  type ApiKeyOwner,
  type ApiKeyRecord,
  type ApiKeyStore,
  type ApiKeySummary,
  apiKeySummary,
  MemoryApiKeyStore,
  requireApiKeyListRequest,
} from '@portcullis/core/api-keys'
import { describe, expect, it } from 'vitest'
import { describeConformance } from '../bindings/vitest.js'
import { ConformanceViolation, runSuite } from '../suite/suite.js'
import {
  apiKeyDirectoryConformanceSuite,
  assertApiKeyDirectoryConformance,
} from './api-key-directory-conformance.js'

type Flaw =
  | 'ignores-owner-kind'
  | 'locale-order'
  | 'hides-revoked'
  | 'leaks-digest'
  | 'live-restrictions'
  | 'inclusive-cursor'
  | 'lenient-input'

/** A directory written the naive way over a memory store, with one deliberate flaw switched on. */
function flawedFixture(flaw: Flaw) {
  const inner = new MemoryApiKeyStore()
  const keyIds: string[] = []
  const cached = new Map<string, ApiKeySummary>()
  const store: ApiKeyStore = {
    get: (keyId) => inner.get(keyId),
    create: async (record) => {
      await inner.create(record)
      keyIds.push(record.keyId)
    },
    rotate: async (rotation) => {
      await inner.rotate(rotation)
      keyIds.push(rotation.replacement.keyId)
    },
    revoke: (keyId, now) => inner.revoke(keyId, now),
    recordUsage: (usage) => inner.recordUsage(usage),
  }
  const summaryOf = (record: ApiKeyRecord): ApiKeySummary => {
    if (flaw === 'leaks-digest') return record
    if (flaw !== 'live-restrictions') return apiKeySummary(record)
    const summary = cached.get(record.keyId) ?? apiKeySummary(record)
    cached.set(record.keyId, summary)
    return summary
  }
  const directory: ApiKeyDirectory = {
    async listByOwner(owner: ApiKeyOwner, options?: ApiKeyListOptions) {
      const { ownerId, ownerKind, limit, after } =
        flaw === 'lenient-input'
          ? {
              ...owner,
              limit: Math.min(Math.max(Math.trunc(options?.limit || 100), 1), 1000),
              after: options?.after,
            }
          : requireApiKeyListRequest(owner, options)
      const order = (a: ApiKeyRecord, b: ApiKeyRecord) =>
        b.createdAt.getTime() - a.createdAt.getTime() ||
        (flaw === 'locale-order' ? a.keyId.localeCompare(b.keyId) : a.keyId < b.keyId ? -1 : 1)
      const all = keyIds
        .map((keyId) => inner.get(keyId))
        .filter((record): record is ApiKeyRecord => record !== undefined)
        .filter((record) => record.ownerId === ownerId)
        .filter((record) => flaw === 'ignores-owner-kind' || record.ownerKind === ownerKind)
        .filter((record) => flaw !== 'hides-revoked' || record.revokedAt === undefined)
        .sort(order)
      const position = after === undefined ? -1 : all.findIndex((record) => record.keyId === after.keyId)
      const start = flaw === 'inclusive-cursor' ? Math.max(position, 0) : position + 1
      return all.slice(start, start + limit).map(summaryOf)
    },
  }
  return { store, directory }
}

const memory = () => {
  const store = new MemoryApiKeyStore()
  return { store, directory: store }
}

describeConformance(apiKeyDirectoryConformanceSuite(memory))

describe('ApiKeyDirectory conformance self-tests', () => {
  it('passes the memory store and disposes every fixture', async () => {
    let disposed = 0
    const suite = apiKeyDirectoryConformanceSuite(() => ({
      ...memory(),
      dispose: () => {
        disposed += 1
      },
    }))
    const results = await runSuite(suite)
    expect(results.filter((result) => !result.passed)).toEqual([])
    expect(disposed).toBe(suite.cases.length)
    await expect(assertApiKeyDirectoryConformance(memory)).resolves.toBeUndefined()
  })

  it.each([
    ['ignores-owner-kind', ['api-keys.directory.owner-only']],
    ['locale-order', ['api-keys.directory.newest-first']],
    ['hides-revoked', ['api-keys.directory.lifecycle']],
    ['leaks-digest', ['api-keys.directory.metadata-only']],
    ['live-restrictions', ['api-keys.directory.metadata-only']],
    ['inclusive-cursor', ['api-keys.directory.pages']],
    ['lenient-input', ['api-keys.directory.input']],
  ] satisfies [Flaw, string[]][])('catches a directory with the flaw %s', async (flaw, expected) => {
    const results = await runSuite(apiKeyDirectoryConformanceSuite(() => flawedFixture(flaw)))
    const failed = results.filter((result) => !result.passed)
    expect(failed.map((result) => result.id)).toEqual(expected)
    for (const result of failed) expect(result.error).toBeInstanceOf(ConformanceViolation)
    await expect(assertApiKeyDirectoryConformance(() => flawedFixture(flaw))).rejects.toThrow(
      expected[0] ?? '',
    )
  })
})
