import { describe, expect, it } from 'vitest'
import { describeConformance } from '../../src/bindings/vitest.js'
import {
  assertOAuthTransactionStoreConformance,
  type OAuthTransactionStoreFactory,
  oauthTransactionStoreSuite,
} from '../../src/protection/index.js'
import { ConformanceViolation, runSuite } from '../../src/suite/suite.js'
import { handWrittenStoreSubject, memorySubject, type StoreFlaws } from './broken-stores.js'

async function failures(factory: OAuthTransactionStoreFactory) {
  const results = await runSuite(oauthTransactionStoreSuite(factory))
  const failed = results.filter((result) => !result.passed)
  for (const result of failed) {
    expect(result.error).toBeInstanceOf(ConformanceViolation)
    expect((result.error as ConformanceViolation).message).toContain(`[${result.id}] ${result.title}`)
  }
  return Object.fromEntries(failed.map((result) => [result.id, (result.error as Error).message]))
}

// The reference store, one vitest test per invariant.
describeConformance(oauthTransactionStoreSuite(memorySubject, 'MemoryOAuthTransactionStore'))

describe('store conformance suite', () => {
  it('passes a correct hand-written store and the reference store', async () => {
    expect(await failures(() => handWrittenStoreSubject())).toEqual({})
    await expect(assertOAuthTransactionStoreConformance(memorySubject)).resolves.toBeUndefined()
  })

  const broken: Array<[string, StoreFlaws, string[]]> = [
    ['a non-atomic consume', { nonAtomicConsume: true }, ['store.concurrent-consume']],
    ['a store that never expires', { neverExpires: true }, ['store.expiry-boundary']],
    ['secrets kept in plaintext', { plaintextAtRest: true }, ['store.secrets-at-rest']],
    ['a lookup that burns on a miss', { burnsOnMiss: true }, ['store.wrong-binding', 'store.wrong-provider']],
    ['a create that overwrites', { overwrites: true }, ['store.duplicate-key']],
    ['an inspector that shows nothing', { blindInspector: true }, ['store.secrets-at-rest']],
  ]
  for (const [flaw, flaws, expected] of broken) {
    it(`fails exactly the violated invariants for ${flaw}`, async () => {
      expect(Object.keys(await failures(() => handWrittenStoreSubject(flaws))).sort()).toEqual(
        expected.sort(),
      )
    })
  }

  it('names what was wrong', async () => {
    expect(
      (await failures(() => handWrittenStoreSubject({ nonAtomicConsume: true })))['store.concurrent-consume'],
    ).toMatch(/16 concurrent consumes won/)
    expect(
      (await failures(() => handWrittenStoreSubject({ plaintextAtRest: true })))['store.secrets-at-rest'],
    ).toMatch(/PKCE verifier is readable/)
    expect(
      (await failures(() => handWrittenStoreSubject({ blindInspector: true })))['store.secrets-at-rest'],
    ).toMatch(/does not show the stored transaction/)
    const error = await assertOAuthTransactionStoreConformance(() =>
      handWrittenStoreSubject({ neverExpires: true }),
    ).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect((error as AggregateError).message).toContain('store.expiry-boundary')
  })

  it('disposes every subject it created, whatever the outcome', async () => {
    let created = 0
    let disposed = 0
    const factory: OAuthTransactionStoreFactory = () => {
      created++
      return { ...handWrittenStoreSubject({ neverExpires: true }), dispose: () => void disposed++ }
    }
    await runSuite(oauthTransactionStoreSuite(factory))
    expect(created).toBe(oauthTransactionStoreSuite(factory).cases.length)
    expect(disposed).toBe(created)
  })
})
