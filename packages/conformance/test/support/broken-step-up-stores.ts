import { setImmediate as tick } from 'node:timers/promises'
import { MemoryStepUpStore, type StepUpRecord, type StepUpStore } from '@portcullis/core/step-up'
import type { StepUpStoreFixture } from '../../src/step-up/index.js'

/** A deliberately naive map-backed store; each flag breaks one invariant. */
class NaiveStepUpStore implements StepUpStore {
  readonly #records = new Map<string, StepUpRecord>()

  constructor(
    private readonly flaw:
      | 'replaying'
      | 'non-atomic-take'
      | 'overwriting'
      | 'purge-all'
      | 'purge-strict'
      | 'lossy-dates',
  ) {}

  async save(record: StepUpRecord): Promise<void> {
    if (this.#records.has(record.digest) && this.flaw !== 'overwriting') {
      throw Object.assign(new Error('duplicate'), { code: 'step-up.duplicate' })
    }
    const stored =
      this.flaw === 'lossy-dates'
        ? { ...record, expiresAt: new Date(Math.floor(record.expiresAt.getTime() / 60_000) * 60_000) }
        : record
    this.#records.set(record.digest, stored)
  }

  async take(digest: string): Promise<StepUpRecord | null> {
    const record = this.#records.get(digest) ?? null
    if (this.flaw === 'replaying') return record
    if (this.flaw === 'non-atomic-take') await tick()
    this.#records.delete(digest)
    return record
  }

  async purgeExpired(now: Date): Promise<number> {
    let removed = 0
    for (const [digest, record] of this.#records) {
      const expired =
        this.flaw === 'purge-all' ||
        (this.flaw === 'purge-strict'
          ? record.expiresAt.getTime() < now.getTime()
          : record.expiresAt.getTime() <= now.getTime())
      if (expired) {
        this.#records.delete(digest)
        removed += 1
      }
    }
    return removed
  }
}

export interface BrokenStepUpStore {
  readonly name: string
  readonly factory: () => StepUpStoreFixture
  readonly caught: readonly string[]
}

const naive = (flaw: ConstructorParameters<typeof NaiveStepUpStore>[0]) => () => ({
  store: new NaiveStepUpStore(flaw),
})

export const brokenStepUpStores: readonly BrokenStepUpStore[] = [
  {
    name: 'replaying take',
    factory: naive('replaying'),
    caught: [
      'step-up.round-trip',
      'step-up.concurrent-take',
      'step-up.single-use',
      'step-up.concurrent-redemption',
      'step-up.wrong-binding-burns',
    ],
  },
  {
    name: 'non-atomic take',
    factory: naive('non-atomic-take'),
    caught: ['step-up.concurrent-take', 'step-up.concurrent-redemption'],
  },
  {
    name: 'duplicate digests overwrite',
    factory: naive('overwriting'),
    caught: ['step-up.duplicate-digest'],
  },
  { name: 'purge removes live records', factory: naive('purge-all'), caught: ['step-up.purge-expired'] },
  {
    name: 'purge keeps records expiring exactly now',
    factory: naive('purge-strict'),
    caught: ['step-up.purge-expired'],
  },
  {
    name: 'expiry rounded to the minute',
    factory: naive('lossy-dates'),
    caught: ['step-up.round-trip', 'step-up.expiry'],
  },
]

export const memoryStepUpFixture = (): StepUpStoreFixture => ({ store: new MemoryStepUpStore() })
