import { randomBytes, randomUUID } from 'node:crypto'
import {
  type ApiKeyDirectory,
  type ApiKeyRecord,
  type ApiKeyStore,
  type ApiKeySummary,
  apiKeyStatus,
} from '@portcullis/core/api-keys'
import { isPortcullisError } from '@portcullis/core/errors'
import { assertSuite, type Check, type ConformanceSuite, conformanceCase } from '../suite/suite.js'
import { sampleApiKeyRecord } from './api-key-store-conformance.js'

/**
 * What each case gets: a store to create records with and the directory that lists the same records
 * (the built-in stores are both). `dispose` runs after the case, whatever its outcome.
 */
export interface ApiKeyDirectoryFixture {
  readonly store: ApiKeyStore
  readonly directory: ApiKeyDirectory
  readonly dispose?: () => void | Promise<void>
}

export type ApiKeyDirectoryFactory = () => ApiKeyDirectoryFixture | Promise<ApiKeyDirectoryFixture>

const T0 = Date.UTC(2030, 5, 1)
const at = (seconds: number): Date => new Date(T0 + seconds * 1000)

/** Every case lists its own owners, so stores over one shared database never see each other's keys. */
const freshOwner = () => `owner-${randomUUID()}`

/** The only fields a summary may have. */
const SUMMARY_FIELDS = new Set([
  'keyId',
  'ownerId',
  'ownerKind',
  'label',
  'restrictions',
  'createdAt',
  'expiresAt',
  'revokedAt',
  'overlapUntil',
  'lastUsedAt',
])

/** A fresh key id that sorts (code-point order) where the case wants it: `prefix` then random characters. */
function keyIdStartingWith(prefix: string): string {
  return (prefix + randomBytes(12).toString('base64url')).slice(0, 16)
}

async function errorCode(operation: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await operation()
    return undefined
  } catch (error) {
    return isPortcullisError(error) ? error.code : 'untyped-error'
  }
}

const ids = (list: readonly ApiKeySummary[]) => list.map((summary) => summary.keyId).join(',')
const time = (date: Date | undefined) => (date instanceof Date ? date.getTime() : date)

/** Newest first, ties by key id in code-point order: the oracle the cases compare with. */
function expectedOrder(records: readonly ApiKeyRecord[]): string {
  return [...records]
    .sort(
      (a, b) =>
        b.createdAt.getTime() - a.createdAt.getTime() || (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : 0),
    )
    .map((record) => record.keyId)
    .join(',')
}

function sameSummary(check: Check, summary: ApiKeySummary | undefined, record: ApiKeyRecord): void {
  check(summary !== undefined, `key ${record.keyId} is missing`)
  if (summary === undefined) return
  check(summary.ownerId === record.ownerId && summary.ownerKind === record.ownerKind, 'owner differs')
  check(summary.label === record.label, `label of ${record.keyId} differs`)
  check(JSON.stringify(summary.restrictions) === JSON.stringify(record.restrictions), 'restrictions differ')
  for (const field of ['createdAt', 'expiresAt', 'revokedAt', 'overlapUntil', 'lastUsedAt'] as const) {
    check(time(summary[field]) === time(record[field]), `${field} of ${record.keyId} differs`)
  }
}

/** True if `text` holds the digest in any common spelling. */
function showsDigest(text: string, digest: Uint8Array): boolean {
  const bytes = Buffer.from(digest)
  return [bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')].some((form) =>
    text.includes(form),
  )
}

interface Context {
  readonly fixture: ApiKeyDirectoryFixture
}

const cases = [
  conformanceCase<Context>(
    'api-keys.directory.owner-only',
    "a listing holds exactly that owner's keys: not another owner's, nor a key of the other owner kind with the same id",
    async ({ fixture: { store, directory } }, check) => {
      const ownerId = freshOwner()
      const mine = [
        sampleApiKeyRecord({ ownerId, ownerKind: 'user', createdAt: at(1) }),
        sampleApiKeyRecord({ ownerId, ownerKind: 'user', createdAt: at(2) }),
      ]
      const others = [
        sampleApiKeyRecord({ ownerId: freshOwner(), ownerKind: 'user', createdAt: at(3) }),
        sampleApiKeyRecord({ ownerId, ownerKind: 'service', createdAt: at(4) }),
      ]
      for (const record of [...mine, ...others]) await store.create(record)
      const listed = await directory.listByOwner({ ownerId, ownerKind: 'user' })
      check(ids(listed) === expectedOrder(mine), `listed ${ids(listed)}, expected ${expectedOrder(mine)}`)
      const services = await directory.listByOwner({ ownerId, ownerKind: 'service' })
      check(ids(services) === others[1]?.keyId, 'the service key of the same id is not listed on its own')
      check(
        (await directory.listByOwner({ ownerId: freshOwner(), ownerKind: 'user' })).length === 0,
        'an owner without keys has keys',
      )
    },
  ),

  conformanceCase<Context>(
    'api-keys.directory.newest-first',
    'keys come newest first, keys created at the same instant by key id in code-point order',
    async ({ fixture: { store, directory } }, check) => {
      const ownerId = freshOwner()
      // Upper case, lower case, digits, '-' and '_' sort differently under a locale collation.
      const records = [
        sampleApiKeyRecord({ ownerId, createdAt: at(10), keyId: keyIdStartingWith('a') }),
        sampleApiKeyRecord({ ownerId, createdAt: at(30) }),
        sampleApiKeyRecord({ ownerId, createdAt: at(10), keyId: keyIdStartingWith('B') }),
        sampleApiKeyRecord({ ownerId, createdAt: at(20) }),
        sampleApiKeyRecord({ ownerId, createdAt: at(10), keyId: keyIdStartingWith('_') }),
        sampleApiKeyRecord({ ownerId, createdAt: at(10), keyId: keyIdStartingWith('-') }),
        sampleApiKeyRecord({ ownerId, createdAt: at(10), keyId: keyIdStartingWith('9') }),
      ]
      for (const record of records) await store.create(record)
      const listed = await directory.listByOwner({ ownerId, ownerKind: 'service' })
      check(
        ids(listed) === expectedOrder(records),
        `listed ${ids(listed)}, expected ${expectedOrder(records)}`,
      )
    },
  ),

  conformanceCase<Context>(
    'api-keys.directory.lifecycle',
    'revoked, rotated and expired keys are listed with their lifecycle fields, label and last use',
    async ({ fixture: { store, directory } }, check) => {
      const ownerId = freshOwner()
      const rotated = sampleApiKeyRecord({
        ownerId,
        createdAt: at(1),
        expiresAt: at(10_000),
        label: 'deploy',
      })
      const revoked = sampleApiKeyRecord({ ownerId, createdAt: at(2) })
      const expired = sampleApiKeyRecord({ ownerId, createdAt: at(3), expiresAt: at(50) })
      const used = sampleApiKeyRecord({ ownerId, createdAt: at(4), restrictions: {} })
      for (const record of [rotated, revoked, expired, used]) await store.create(record)
      const replacement = sampleApiKeyRecord({ ownerId, createdAt: at(100) })
      await store.rotate({ currentKeyId: rotated.keyId, replacement, overlapUntil: at(700), now: at(100) })
      await store.revoke(revoked.keyId, at(200))
      await store.recordUsage([{ keyId: used.keyId, usedAt: at(300) }])
      const listed = await directory.listByOwner({ ownerId, ownerKind: 'service' })
      const byId = new Map(listed.map((summary) => [summary.keyId, summary]))
      check(listed.length === 5, `listed ${listed.length} keys, expected 5`)
      sameSummary(check, byId.get(rotated.keyId), { ...rotated, revokedAt: at(100), overlapUntil: at(700) })
      sameSummary(check, byId.get(revoked.keyId), { ...revoked, revokedAt: at(200) })
      sameSummary(check, byId.get(expired.keyId), expired)
      sameSummary(check, byId.get(used.keyId), { ...used, lastUsedAt: at(300) })
      sameSummary(check, byId.get(replacement.keyId), replacement)
      const now = at(400).getTime()
      const states = [rotated, revoked, expired, used, replacement].map((record) => {
        const summary = byId.get(record.keyId)
        return summary === undefined ? 'missing' : apiKeyStatus(summary, now)
      })
      check(
        states.join(',') === 'overlap,revoked,expired,active,active',
        `states at t+400 s: ${states.join(',')}`,
      )
    },
  ),

  conformanceCase<Context>(
    'api-keys.directory.metadata-only',
    'a listing carries metadata only: no digest or pepper field, no digest bytes in any form, and fresh copies',
    async ({ fixture: { store, directory } }, check) => {
      const ownerId = freshOwner()
      const record = sampleApiKeyRecord({ ownerId, label: 'audit export' })
      const restrictions = JSON.stringify(record.restrictions)
      await store.create(record)
      const [summary] = await directory.listByOwner({ ownerId, ownerKind: 'service' })
      check(summary !== undefined, 'the key is not listed')
      if (summary === undefined) return
      const extra = Object.keys(summary).filter((field) => !SUMMARY_FIELDS.has(field))
      check(extra.length === 0, `unexpected field(s): ${extra.join(', ')}`)
      for (const value of Object.values(summary)) {
        check(!(value instanceof Uint8Array), 'a field holds bytes')
      }
      check(!showsDigest(JSON.stringify(summary), record.digest), 'the digest appears in the listing')
      ;(summary.restrictions.scopes as string[] | undefined)?.push('admin')
      const [again] = await directory.listByOwner({ ownerId, ownerKind: 'service' })
      check(JSON.stringify(again?.restrictions) === restrictions, 'a listing handed out live restrictions')
    },
  ),

  conformanceCase<Context>(
    'api-keys.directory.pages',
    'limit and after page through the keys: every key once, in order, and a short page at the end',
    async ({ fixture: { store, directory } }, check) => {
      const ownerId = freshOwner()
      // Three keys share an instant, so the cursor must break the tie by key id.
      const records = [
        sampleApiKeyRecord({ ownerId, createdAt: at(5), keyId: keyIdStartingWith('p') }),
        sampleApiKeyRecord({ ownerId, createdAt: at(5), keyId: keyIdStartingWith('k') }),
        sampleApiKeyRecord({ ownerId, createdAt: at(5), keyId: keyIdStartingWith('m') }),
        sampleApiKeyRecord({ ownerId, createdAt: at(9) }),
        sampleApiKeyRecord({ ownerId, createdAt: at(1) }),
      ]
      for (const record of records) await store.create(record)
      const owner = { ownerId, ownerKind: 'service' } as const
      const pages: ApiKeySummary[][] = []
      let after: ApiKeySummary | undefined
      for (let page = 0; page < 5; page += 1) {
        const listed = await directory.listByOwner(
          owner,
          after === undefined ? { limit: 2 } : { limit: 2, after },
        )
        pages.push([...listed])
        after = listed.at(-1)
        if (listed.length < 2) break
      }
      check(
        pages.map((page) => page.length).join(',') === '2,2,1',
        `page sizes ${pages.map((page) => page.length).join(',')}`,
      )
      check(ids(pages.flat()) === expectedOrder(records), 'pages skipped, repeated or reordered keys')
      check((await directory.listByOwner(owner, { limit: 1 })).length === 1, 'limit 1 is not one key')
    },
  ),

  conformanceCase<Context>(
    'api-keys.directory.input',
    'a blank owner, an unknown owner kind, a limit outside 1..1000 or a bad cursor is api_key.invalid_input',
    async ({ fixture: { directory } }, check) => {
      const owner = { ownerId: freshOwner(), ownerKind: 'user' } as const
      const refused = async (label: string, call: () => Promise<unknown>) => {
        const code = await errorCode(call)
        check(code === 'api_key.invalid_input', `${label}: ${code ?? 'accepted'}`)
      }
      await refused('blank owner', () => directory.listByOwner({ ownerId: ' ', ownerKind: 'user' }))
      await refused('owner kind', () =>
        directory.listByOwner({ ownerId: owner.ownerId, ownerKind: 'robot' as 'user' }),
      )
      for (const limit of [0, 1001, 1.5, Number.NaN]) {
        await refused(`limit ${limit}`, () => directory.listByOwner(owner, { limit }))
      }
      await refused('cursor date', () =>
        directory.listByOwner(owner, { after: { createdAt: new Date('x'), keyId: 'AAAAAAAAAAAAAAAA' } }),
      )
      await refused('cursor id', () =>
        directory.listByOwner(owner, { after: { createdAt: at(1), keyId: '' } }),
      )
    },
  ),
]

/** The `ApiKeyDirectory` suite: run it with `assertSuite`, or per case with `describeConformance`. */
export function apiKeyDirectoryConformanceSuite(factory: ApiKeyDirectoryFactory): ConformanceSuite<Context> {
  return {
    name: 'ApiKeyDirectory conformance',
    cases,
    createContext: async () => ({ fixture: await factory() }),
    disposeContext: async ({ fixture }) => {
      await fixture.dispose?.()
    },
  }
}

/** Throws an `AggregateError` naming every invariant the directory breaks. */
export function assertApiKeyDirectoryConformance(factory: ApiKeyDirectoryFactory): Promise<void> {
  return assertSuite(apiKeyDirectoryConformanceSuite(factory))
}
