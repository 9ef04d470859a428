import { describe, expect, it } from 'vitest'
import { describeConformance } from '../../src/bindings/vitest.js'
import {
  assertOAuthTransactionProtectorConformance,
  type OAuthTransactionProtectorFactory,
  oauthTransactionProtectorSuite,
} from '../../src/protection/index.js'
import { ConformanceViolation, runSuite } from '../../src/suite/suite.js'
import { aesGcmSubject, type Flaws, handWrittenSubject } from './broken-protectors.js'

async function failures(factory: OAuthTransactionProtectorFactory) {
  const results = await runSuite(oauthTransactionProtectorSuite(factory))
  const failed = results.filter((result) => !result.passed)
  for (const result of failed) {
    expect(result.error).toBeInstanceOf(ConformanceViolation)
    expect((result.error as ConformanceViolation).caseId).toBe(result.id)
    expect((result.error as ConformanceViolation).message).toContain(`[${result.id}] ${result.title}`)
  }
  return Object.fromEntries(failed.map((result) => [result.id, (result.error as Error).message]))
}

// The reference implementation, one vitest test per invariant.
describeConformance(oauthTransactionProtectorSuite(aesGcmSubject, 'AESGCMOAuthTransactionProtector'))

describe('protector conformance suite', () => {
  it('has stable, unique case ids', () => {
    const ids = oauthTransactionProtectorSuite(aesGcmSubject).cases.map((c) => c.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.length).toBeGreaterThanOrEqual(14)
  })

  it('passes a correct hand-written protector, so it tests the contract and not one implementation', async () => {
    expect(await failures(() => handWrittenSubject())).toEqual({})
    await expect(assertOAuthTransactionProtectorConformance(aesGcmSubject)).resolves.toBeUndefined()
  })

  const broken: Array<[string, Flaws, string[]]> = [
    ['a deterministic nonce', { fixedNonce: true }, ['protector.non-deterministic']],
    ['ignored associated data', { ignoreAad: true }, ['protector.aad-binding']],
    [
      'a wrong version label',
      { label: 'legacy' },
      ['protector.active-version', 'protector.retained-key', 'protector.seals-under-active'],
    ],
    [
      'sealing under a retained key',
      { sealWithRetained: true },
      ['protector.active-version', 'protector.seals-under-active', 'protector.version-relabel'],
    ],
    [
      'trial decryption with every key',
      { trialDecrypt: true },
      ['protector.malformed-envelope', 'protector.unknown-version', 'protector.version-relabel'],
    ],
  ]
  for (const [flaw, flaws, expected] of broken) {
    it(`fails exactly the violated invariants for ${flaw}`, async () => {
      expect(Object.keys(await failures(() => handWrittenSubject(flaws))).sort()).toEqual(expected.sort())
    })
  }

  it('fails unauthenticated encryption on tampering and associated data', async () => {
    const failed = await failures(() => handWrittenSubject({ unauthenticated: true }))
    for (const id of [
      'protector.aad-binding',
      'protector.bit-flip',
      'protector.byte-substitution',
      'protector.wrong-key',
    ]) {
      expect(failed[id]).toBeDefined()
    }
    expect(failed['protector.bit-flip']).toMatch(/bit \d+ flipped was accepted/)
  })

  it('fails implementations that throw untyped errors, naming the expected code', async () => {
    const failed = await failures(() => handWrittenSubject({ untypedErrors: true }))
    expect(failed['protector.aad-binding']).toContain('instead of protection.envelope_rejected')
    expect(failed['protector.malformed-envelope']).toBeDefined()
    expect(failed['protector.round-trip']).toBeUndefined()
  })

  it('reports every violation at once from the assert entry point', async () => {
    const error = await assertOAuthTransactionProtectorConformance(() =>
      handWrittenSubject({ fixedNonce: true }),
    ).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(AggregateError)
    expect((error as AggregateError).message).toContain('protector.non-deterministic')
    expect((error as AggregateError).errors[0]).toBeInstanceOf(ConformanceViolation)
  })
})
