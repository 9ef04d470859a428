import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { ConfigurationError, InvalidInputError } from '../../src/errors/index.js'
import {
  MemoryOAuthTransactionStore,
  type OAuthTransaction,
  OAuthTransactionStoreError,
} from '../../src/oauth/transactions/index.js'
import type { OAuthTransactionProtector } from '../../src/protection/index.js'
import { ProtectedEnvelopeError } from '../../src/protection/index.js'
import { ManualClock, newProtector, newTransaction, T0 } from './fixtures.js'

const at = (ms: number) => new Date(T0.getTime() + ms)

describe('MemoryOAuthTransactionStore', () => {
  it('requires a protector: a type error at compile time and a configuration error at run time', () => {
    // @ts-expect-error the protector is required
    expect(() => new MemoryOAuthTransactionStore({})).toThrow(ConfigurationError)
    // @ts-expect-error the options are required
    expect(() => new MemoryOAuthTransactionStore()).toThrow(ConfigurationError)
    const fake = { protect: () => null } as unknown as OAuthTransactionProtector
    expect(() => new MemoryOAuthTransactionStore({ protector: fake })).toThrowError(
      expect.objectContaining({ code: 'oauth.transaction_store.protector_required' }),
    )
    for (const capacity of [0, -1, 1.5, Number.NaN]) {
      expect(() => new MemoryOAuthTransactionStore({ protector: newProtector(), capacity })).toThrowError(
        expect.objectContaining({ code: 'oauth.transaction_store.capacity_invalid' }),
      )
    }
  })

  it('returns the exact transaction, secrets restored, and only once', async () => {
    const store = new MemoryOAuthTransactionStore({ protector: newProtector() })
    const tx = newTransaction()
    await store.create(tx)
    const hit = await store.consume(tx, at(1))
    expect(hit && { ...hit }).toEqual({ ...tx })
    expect(await store.consume(tx, at(2))).toBeNull()
    expect(store.size).toBe(0)
  })

  it('does not burn the transaction on a lookup with another state, binding or provider', async () => {
    const store = new MemoryOAuthTransactionStore({ protector: newProtector() })
    const tx = newTransaction()
    await store.create(tx)
    const misses = [
      { ...tx, stateDigest: randomBytes(32) },
      { ...tx, bindingDigest: randomBytes(32) },
      { stateDigest: tx.stateDigest, bindingDigest: tx.bindingDigest, provider: 'other' },
    ]
    for (const key of misses) expect(await store.consume(key, at(1))).toBeNull()
    expect((await store.consume(tx, at(1)))?.pkceVerifier).toBe(tx.pkceVerifier)
  })

  it('lets exactly one of many concurrent consumes win', async () => {
    const store = new MemoryOAuthTransactionStore({ protector: newProtector() })
    const tx = newTransaction()
    await store.create(tx)
    const results = await Promise.all(Array.from({ length: 32 }, () => store.consume(tx, at(1))))
    expect(results.filter((result) => result !== null)).toHaveLength(1)
  })

  it('treats expiresAt as exclusive and removes the expired record', async () => {
    const store = new MemoryOAuthTransactionStore({ protector: newProtector() })
    const early = newTransaction()
    const boundary = newTransaction()
    await store.create(early)
    await store.create(boundary)
    expect(await store.consume(early, at(599_999))).not.toBeNull()
    expect(await store.consume(boundary, at(600_000))).toBeNull()
    expect(await store.consume(boundary, at(0))).toBeNull()
    expect(store.size).toBe(0)
  })

  it('rejects a duplicate key, also when two creates race, and keeps the first', async () => {
    const store = new MemoryOAuthTransactionStore({ protector: newProtector() })
    const first = newTransaction()
    const second = newTransaction({ stateDigest: first.stateDigest, bindingDigest: first.bindingDigest })
    const outcomes = await Promise.allSettled([store.create(first), store.create(second)])
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected'])
    const rejected = outcomes.find((outcome) => outcome.status === 'rejected')
    expect(rejected?.status === 'rejected' && rejected.reason).toBeInstanceOf(OAuthTransactionStoreError)
    expect(rejected?.status === 'rejected' && rejected.reason.code).toBe('oauth.transaction_store.duplicate')
    expect(store.size).toBe(1)
    await expect(store.create(first)).rejects.toThrowError(
      expect.objectContaining({ code: 'oauth.transaction_store.duplicate' }),
    )
    const winner = await store.consume(first, at(1))
    expect([first.pkceVerifier, second.pkceVerifier]).toContain(winner?.pkceVerifier)
  })

  it('enforces its capacity and purges expired records before refusing', async () => {
    const clock = new ManualClock()
    const store = new MemoryOAuthTransactionStore({
      protector: newProtector(),
      capacity: 2,
      clock: clock.now,
    })
    const short = newTransaction({ expiresAt: at(1_000) })
    await store.create(short)
    await store.create(newTransaction())
    await expect(store.create(newTransaction())).rejects.toThrowError(
      expect.objectContaining({ code: 'oauth.transaction_store.full', errorClass: 'unavailable' }),
    )
    clock.advance(1_000)
    const third = newTransaction()
    await store.create(third)
    expect(store.size).toBe(2)
    expect(await store.consume(short, at(0))).toBeNull()
    expect(await store.consume(third, at(1))).not.toBeNull()
  })

  it('writes nothing when sealing fails', async () => {
    const protector = newProtector()
    let calls = 0
    const flaky: OAuthTransactionProtector = {
      activeKeyVersion: protector.activeKeyVersion,
      protect: (plaintext, aad) => {
        calls++
        return calls === 2 ? Promise.reject(new Error('kms down')) : protector.protect(plaintext, aad)
      },
      unprotect: (envelope, aad) => protector.unprotect(envelope, aad),
    }
    const store = new MemoryOAuthTransactionStore({ protector: flaky })
    const tx = newTransaction()
    await expect(store.create(tx)).rejects.toThrow('kms down')
    expect(store.size).toBe(0)
    await store.create(tx)
    expect((await store.consume(tx, at(1)))?.nonce).toBe(tx.nonce)
  })

  it('burns a record whose envelopes no longer open', async () => {
    const store = new MemoryOAuthTransactionStore({ protector: newProtector() })
    const tx = newTransaction()
    await store.create(tx)
    const [sealed] = store.storedForm()
    if (sealed === undefined) throw new Error('nothing stored')
    const tampered = new Uint8Array(sealed.pkceVerifier.ciphertext)
    tampered[20] = (tampered[20] ?? 0) ^ 1
    ;(sealed.pkceVerifier as { ciphertext: Uint8Array }).ciphertext.set(tampered)
    await expect(store.consume(tx, at(1))).rejects.toBeInstanceOf(ProtectedEnvelopeError)
    expect(await store.consume(tx, at(1))).toBeNull()
  })

  it('keeps only digests and envelopes at rest', async () => {
    const store = new MemoryOAuthTransactionStore({ protector: newProtector() })
    const tx: OAuthTransaction = newTransaction()
    await store.create(tx)
    const dump = JSON.stringify(store.storedForm(), (_key, value) =>
      value instanceof Uint8Array ? Buffer.from(value).toString('hex') : value,
    )
    expect(dump).toContain(Buffer.from(tx.stateDigest).toString('hex'))
    expect(dump).not.toContain(tx.pkceVerifier)
    expect(dump).not.toContain(tx.nonce ?? 'never')
    expect(dump).not.toContain(Buffer.from(tx.pkceVerifier).toString('hex'))
  })

  it('refuses malformed keys, times and records with typed errors', async () => {
    const store = new MemoryOAuthTransactionStore({ protector: newProtector() })
    const tx = newTransaction()
    await expect(store.consume({ ...tx, stateDigest: randomBytes(31) }, at(1))).rejects.toBeInstanceOf(
      InvalidInputError,
    )
    await expect(store.consume({ ...tx, provider: '' }, at(1))).rejects.toBeInstanceOf(InvalidInputError)
    await expect(store.consume(tx, new Date(Number.NaN))).rejects.toBeInstanceOf(InvalidInputError)
    await expect(store.create({ ...tx } as OAuthTransaction)).rejects.toBeInstanceOf(InvalidInputError)
    expect(store.size).toBe(0)
  })
})
