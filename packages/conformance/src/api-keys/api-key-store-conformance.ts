import { randomBytes } from 'node:crypto'
import type { ApiKeyRecord, ApiKeyStore } from '@portcullis/core/api-keys'
import { isPortcullisError } from '@portcullis/core/errors'
import { assertSuite, type Check, type ConformanceSuite, conformanceCase } from '../suite/suite.js'

export type ApiKeyStoreFactory = () => ApiKeyStore | Promise<ApiKeyStore>

export interface ApiKeyStoreConformanceOptions {
  /** Runs after each case, e.g. to drop a test schema or close a pool. */
  readonly dispose?: (store: ApiKeyStore) => void | Promise<void>
}

interface Context {
  readonly store: ApiKeyStore
}

const T0 = new Date(Date.UTC(2030, 0, 1))
const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000)

/** A valid record with a fresh random id and digest; `overrides` are applied on top. */
export function sampleApiKeyRecord(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    keyId: randomBytes(12).toString('base64url'),
    ownerId: 'conformance-owner',
    ownerKind: 'service',
    digest: new Uint8Array(randomBytes(32)),
    pepperVersion: 'v1',
    restrictions: { scopes: ['reports:read'], tenants: { 'tenant-1': ['viewer'] } },
    createdAt: at(0),
    ...overrides,
  }
}

async function errorCode(operation: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await operation()
    return undefined
  } catch (error) {
    return isPortcullisError(error) ? error.code : 'untyped-error'
  }
}

const time = (date: Date | undefined): number | undefined => date?.getTime()

function sameRecord(check: Check, actual: ApiKeyRecord | undefined, expected: ApiKeyRecord): void {
  check(actual !== undefined, 'record is missing')
  if (actual === undefined) return
  check(actual.keyId === expected.keyId, 'keyId differs')
  check(actual.ownerId === expected.ownerId && actual.ownerKind === expected.ownerKind, 'owner differs')
  check(Buffer.from(actual.digest).equals(Buffer.from(expected.digest)), 'digest bytes differ')
  check(actual.pepperVersion === expected.pepperVersion, 'pepperVersion differs')
  check(JSON.stringify(actual.restrictions) === JSON.stringify(expected.restrictions), 'restrictions differ')
  check(actual.label === expected.label, 'label differs')
  for (const field of ['createdAt', 'expiresAt', 'revokedAt', 'overlapUntil', 'lastUsedAt'] as const) {
    check(time(actual[field]) === time(expected[field]), `${field} differs`)
  }
}

const cases = [
  conformanceCase<Context>(
    'api-keys.round-trip',
    'a created record reads back field for field',
    async ({ store }, check) => {
      const record = sampleApiKeyRecord({ expiresAt: at(3600), label: 'nightly export', ownerKind: 'user' })
      await store.create(record)
      sameRecord(check, await store.get(record.keyId), record)
      const bare = sampleApiKeyRecord({ restrictions: {} })
      await store.create(bare)
      sameRecord(check, await store.get(bare.keyId), bare)
    },
  ),

  conformanceCase<Context>(
    'api-keys.unknown',
    'an unknown key id reads as undefined',
    async ({ store }, check) => {
      check((await store.get(sampleApiKeyRecord().keyId)) === undefined)
    },
  ),

  conformanceCase<Context>(
    'api-keys.isolation',
    'records are copies: mutating inputs or results never changes the store',
    async ({ store }, check) => {
      const record = sampleApiKeyRecord()
      const original = Buffer.from(record.digest)
      await store.create(record)
      record.digest.fill(0)
      const read = await store.get(record.keyId)
      check(
        read !== undefined && Buffer.from(read.digest).equals(original),
        'store kept a reference to the input digest',
      )
      read?.digest.fill(1)
      ;(read?.restrictions.scopes as string[] | undefined)?.push('admin')
      const again = await store.get(record.keyId)
      check(again !== undefined && Buffer.from(again.digest).equals(original), 'store returned a live digest')
      check(
        JSON.stringify(again?.restrictions.scopes) === '["reports:read"]',
        'store returned live restrictions',
      )
    },
  ),

  conformanceCase<Context>(
    'api-keys.duplicate-create',
    'creating an existing key id fails with api_key.duplicate_key_id and changes nothing',
    async ({ store }, check) => {
      const record = sampleApiKeyRecord()
      await store.create(record)
      const twin = sampleApiKeyRecord({ keyId: record.keyId, ownerId: 'intruder' })
      check(
        (await errorCode(() => store.create(twin))) === 'api_key.duplicate_key_id',
        'duplicate was not refused',
      )
      check((await store.get(record.keyId))?.ownerId === record.ownerId, 'duplicate overwrote the record')
    },
  ),

  conformanceCase<Context>(
    'api-keys.rotate',
    'rotation revokes the current key at now with the overlap and inserts the replacement',
    async ({ store }, check) => {
      const current = sampleApiKeyRecord({ expiresAt: at(86_400) })
      const replacement = sampleApiKeyRecord()
      await store.create(current)
      await store.rotate({ currentKeyId: current.keyId, replacement, overlapUntil: at(700), now: at(100) })
      const old = await store.get(current.keyId)
      check(time(old?.revokedAt) === at(100).getTime(), 'revokedAt is not the rotation time')
      check(time(old?.overlapUntil) === at(700).getTime(), 'overlapUntil is not the requested end')
      sameRecord(check, await store.get(replacement.keyId), replacement)
    },
  ),

  conformanceCase<Context>(
    'api-keys.rotate-clamp',
    'the overlap never outlives the current key',
    async ({ store }, check) => {
      const current = sampleApiKeyRecord({ expiresAt: at(300) })
      await store.create(current)
      await store.rotate({
        currentKeyId: current.keyId,
        replacement: sampleApiKeyRecord(),
        overlapUntil: at(900),
        now: at(100),
      })
      check(
        time((await store.get(current.keyId))?.overlapUntil) === at(300).getTime(),
        'overlap not clamped to expiresAt',
      )
    },
  ),

  conformanceCase<Context>(
    'api-keys.rotate-no-overlap',
    'rotation without an overlap ends the current key at once',
    async ({ store }, check) => {
      const current = sampleApiKeyRecord()
      await store.create(current)
      await store.rotate({ currentKeyId: current.keyId, replacement: sampleApiKeyRecord(), now: at(100) })
      const old = await store.get(current.keyId)
      check(time(old?.revokedAt) === at(100).getTime() && old?.overlapUntil === undefined)
    },
  ),

  conformanceCase<Context>(
    'api-keys.rotate-refusals',
    'a refused rotation names its reason and changes nothing',
    async ({ store }, check) => {
      const current = sampleApiKeyRecord({ expiresAt: at(1000) })
      const taken = sampleApiKeyRecord()
      await store.create(current)
      await store.create(taken)
      const rotate = (currentKeyId: string, replacement: ApiKeyRecord, now: Date) =>
        errorCode(() => store.rotate({ currentKeyId, replacement, overlapUntil: at(200), now }))
      check(
        (await rotate(sampleApiKeyRecord().keyId, sampleApiKeyRecord(), at(100))) === 'api_key.not_found',
        'missing current',
      )
      check(
        (await rotate(current.keyId, sampleApiKeyRecord({ keyId: taken.keyId }), at(100))) ===
          'api_key.duplicate_key_id',
        'taken id',
      )
      const untouched = await store.get(current.keyId)
      check(
        untouched?.revokedAt === undefined && untouched?.overlapUntil === undefined,
        'a refused rotation revoked the key',
      )
      check(
        (await store.get(taken.keyId))?.ownerId === taken.ownerId,
        'a refused rotation overwrote a record',
      )
      check(
        (await rotate(current.keyId, sampleApiKeyRecord(), at(1000))) === 'api_key.not_active',
        'expired current',
      )
      await store.revoke(current.keyId, at(10))
      const orphan = sampleApiKeyRecord()
      check((await rotate(current.keyId, orphan, at(100))) === 'api_key.not_active', 'revoked current')
      check((await store.get(orphan.keyId)) === undefined, 'a refused rotation inserted its replacement')
    },
  ),

  conformanceCase<Context>(
    'api-keys.rotate-race',
    'of concurrent rotations of one key exactly one wins',
    async ({ store }, check) => {
      const current = sampleApiKeyRecord()
      await store.create(current)
      const replacements = Array.from({ length: 8 }, () => sampleApiKeyRecord())
      const results = await Promise.allSettled(
        replacements.map((replacement) =>
          store.rotate({ currentKeyId: current.keyId, replacement, overlapUntil: at(160), now: at(100) }),
        ),
      )
      const winners = results.filter((result) => result.status === 'fulfilled').length
      check(winners === 1, `${winners} rotations succeeded`)
      const inserted = (
        await Promise.all(replacements.map((replacement) => store.get(replacement.keyId)))
      ).filter(Boolean)
      check(inserted.length === 1, `${inserted.length} replacements were inserted`)
      for (const result of results) {
        if (result.status === 'rejected') {
          const code = isPortcullisError(result.reason) ? result.reason.code : 'untyped-error'
          check(code === 'api_key.not_active', `a losing rotation failed with ${code}`)
        }
      }
    },
  ),

  conformanceCase<Context>(
    'api-keys.revoke',
    'revocation ends any overlap now, keeps an earlier revocation, and refuses unknown ids',
    async ({ store }, check) => {
      const current = sampleApiKeyRecord()
      await store.create(current)
      await store.rotate({
        currentKeyId: current.keyId,
        replacement: sampleApiKeyRecord(),
        overlapUntil: at(600),
        now: at(100),
      })
      await store.revoke(current.keyId, at(200))
      const revoked = await store.get(current.keyId)
      check(revoked?.overlapUntil === undefined, 'overlap survived revocation')
      check(time(revoked?.revokedAt) === at(100).getTime(), 'an earlier revocation time was moved')
      const plain = sampleApiKeyRecord()
      await store.create(plain)
      await store.revoke(plain.keyId, at(50))
      check(
        time((await store.get(plain.keyId))?.revokedAt) === at(50).getTime(),
        'revokedAt is not the revocation time',
      )
      check(
        (await errorCode(() => store.revoke(sampleApiKeyRecord().keyId, at(50)))) === 'api_key.not_found',
        'unknown id',
      )
    },
  ),

  conformanceCase<Context>(
    'api-keys.usage',
    'lastUsedAt only moves forward and unknown ids are ignored',
    async ({ store }, check) => {
      const record = sampleApiKeyRecord()
      await store.create(record)
      const stranger = sampleApiKeyRecord().keyId
      await store.recordUsage([
        { keyId: record.keyId, usedAt: at(500) },
        { keyId: stranger, usedAt: at(500) },
      ])
      await store.recordUsage([{ keyId: record.keyId, usedAt: at(200) }])
      check(
        time((await store.get(record.keyId))?.lastUsedAt) === at(500).getTime(),
        'lastUsedAt moved backwards',
      )
      check((await store.get(stranger)) === undefined, 'usage created a record')
    },
  ),
]

/** The `ApiKeyStore` suite: run it with `assertSuite`, or per case with `describeConformance`. */
export function apiKeyStoreConformanceSuite(
  factory: ApiKeyStoreFactory,
  options: ApiKeyStoreConformanceOptions = {},
): ConformanceSuite<Context> {
  return {
    name: 'ApiKeyStore conformance',
    cases,
    createContext: async () => ({ store: await factory() }),
    ...(options.dispose === undefined
      ? {}
      : { disposeContext: ({ store }: Context) => options.dispose?.(store) }),
  }
}

/** Throws an `AggregateError` naming every invariant the store breaks. */
export function assertApiKeyStoreConformance(
  factory: ApiKeyStoreFactory,
  options: ApiKeyStoreConformanceOptions = {},
): Promise<void> {
  return assertSuite(apiKeyStoreConformanceSuite(factory, options))
}
