import { randomUUID } from 'node:crypto'
import { setImmediate as tick } from 'node:timers/promises'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  type ConsumeCodeOutcome,
  type ConsumeCodeRequest,
  codeDigestMatches,
  type IssueCodeRequest,
  MemoryOneTimeCodeStore,
  type OneTimeCodeRecord,
  type OneTimeCodeStore,
  type RevokeCodesRequest,
  type SweepCodesRequest,
  validateConsumeRequest,
  validateIssueRequest,
} from '@portcullis/core/codes'
import { MemoryMailOutbox } from '@portcullis/core/mail'
import type { OneTimeCodeStoreFixture } from '../../src/codes/index.js'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'

/** The reference memory store, cascaded from a memory account store and writing into a memory outbox. */
export function memoryCodeFixture(): OneTimeCodeStoreFixture {
  const outbox = new MemoryMailOutbox()
  const store = new MemoryOneTimeCodeStore({ outbox })
  const accounts = new MemoryAccountStore({ cascade: [store] })
  return {
    store,
    async createAccount() {
      const accountId = randomUUID()
      const username = `user-${accountId.slice(0, 8)}`
      const created = await accounts.createAccount({
        accountId,
        username,
        passwordHash: HASH,
        now: new Date(),
      })
      if (created.outcome !== 'created') throw new Error(`account fixture: ${created.outcome}`)
      return accountId
    },
    async deleteAccount(accountId) {
      await accounts.deleteAccount({ accountId, now: new Date() })
    },
    async storedOutboxIds(ids) {
      const pending = new Set(outbox.pending().map((entry) => entry.id))
      return ids.filter((id) => pending.has(id))
    },
  }
}

type Flaw =
  | 'check-then-set'
  | 'lost-guess-count'
  | 'uncounted'
  | 'purpose-blind'
  | 'expired-counts'
  | 'no-supersede'
  | 'unbounded-sweep'
  | 'active-key-only'
  | 'unvalidated'
  | 'outbox-first'
  | 'racy-supersede'

/** A map-backed store written from scratch; each flaw breaks one invariant. */
class NaiveCodeStore implements OneTimeCodeStore {
  readonly #records = new Map<string, OneTimeCodeRecord>()

  constructor(
    private readonly flaw: Flaw,
    private readonly outbox: MemoryMailOutbox,
  ) {}

  async issue(request: IssueCodeRequest): Promise<void> {
    const { code, supersede, outbox } =
      this.flaw === 'unvalidated'
        ? { code: request.code, supersede: request.supersede !== false, outbox: request.outbox ?? [] }
        : validateIssueRequest(request)
    if (this.flaw === 'outbox-first' && outbox.length > 0) await this.outbox.enqueue(outbox)
    // 'racy-supersede' picks the codes to replace, then awaits before it writes (no lock between).
    const stale = this.flaw === 'racy-supersede' ? [...this.#records.keys()] : []
    if (this.flaw === 'racy-supersede') await tick()
    if (this.#records.has(code.id)) throw Object.assign(new Error('duplicate'), { code: 'codes.duplicate' })
    const write =
      this.flaw === 'outbox-first' || outbox.length === 0 ? () => {} : this.outbox.prepareWrite(outbox)
    if (supersede && this.flaw !== 'no-supersede') {
      const candidates = this.flaw === 'racy-supersede' ? stale : [...this.#records.keys()]
      for (const id of candidates) {
        const live = this.#records.get(id)
        if (live === undefined) continue
        const same =
          code.accountId === null
            ? live.address === code.address && live.accountId === null
            : live.accountId === code.accountId
        if (same && live.purpose === code.purpose) this.#records.delete(id)
      }
    }
    this.#records.set(code.id, { ...code, attempts: 0 })
    write()
  }

  async consume(request: ConsumeCodeRequest): Promise<ConsumeCodeOutcome> {
    const { id, purpose, candidates, now } =
      this.flaw === 'unvalidated' ? request : validateConsumeRequest(request)
    const record = this.#records.get(id)
    if (record === undefined) return { outcome: 'not-found' }
    if (record.purpose !== purpose && this.flaw !== 'purpose-blind') return { outcome: 'not-found' }
    const expired = record.expiresAt.getTime() <= now.getTime()
    if (expired && this.flaw !== 'expired-counts') return { outcome: 'expired' }
    const offered = this.flaw === 'active-key-only' ? candidates.slice(0, 1) : candidates
    if (this.flaw === 'check-then-set' || this.flaw === 'lost-guess-count') await tick()
    if (!expired && codeDigestMatches(record, offered)) {
      this.#records.delete(id)
      return { outcome: 'consumed', code: record }
    }
    // 'lost-guess-count' writes back the count it read before the await.
    const attempts = this.flaw === 'uncounted' ? record.attempts : record.attempts + 1
    if (expired) {
      this.#records.set(id, { ...record, attempts })
      return { outcome: 'expired' }
    }
    if (attempts >= record.maxAttempts) {
      this.#records.delete(id)
      return { outcome: 'exhausted' }
    }
    this.#records.set(id, { ...record, attempts })
    return { outcome: 'mismatch', attemptsLeft: record.maxAttempts - attempts }
  }

  async revoke(request: RevokeCodesRequest): Promise<number> {
    let removed = 0
    for (const [id, record] of this.#records) {
      if (record.accountId !== request.accountId) continue
      if (request.purposes !== undefined && !request.purposes.includes(record.purpose)) continue
      this.#records.delete(id)
      removed += 1
    }
    return removed
  }

  async sweep(request: SweepCodesRequest): Promise<number> {
    if (
      this.flaw !== 'unvalidated' &&
      (!Number.isInteger(request.limit) || request.limit < 1 || request.limit > 10_000)
    ) {
      throw Object.assign(new Error('limit'), { code: 'codes.invalid_input' })
    }
    if (this.flaw !== 'unvalidated' && Number.isNaN(new Date(request.now as Date).getTime())) {
      throw Object.assign(new Error('now'), { code: 'codes.invalid_input' })
    }
    let removed = 0
    for (const [id, record] of this.#records) {
      if (this.flaw !== 'unbounded-sweep' && removed >= request.limit) break
      if (record.expiresAt.getTime() > request.now.getTime()) continue
      this.#records.delete(id)
      removed += 1
    }
    return removed
  }
}

export interface BrokenCodeStore {
  readonly name: string
  readonly factory: () => OneTimeCodeStoreFixture
  readonly caught: readonly string[]
}

function broken(flaw: Flaw, name: string, caught: readonly string[]): BrokenCodeStore {
  return {
    name,
    caught,
    factory: () => {
      const outbox = new MemoryMailOutbox()
      return {
        store: new NaiveCodeStore(flaw, outbox),
        createAccount: async () => randomUUID(),
        async storedOutboxIds(ids) {
          const pending = new Set(outbox.pending().map((entry) => entry.id))
          return ids.filter((id) => pending.has(id))
        },
      }
    },
  }
}

export const brokenCodeStores: readonly BrokenCodeStore[] = [
  broken('check-then-set', 'finds the code, awaits, then deletes it', ['codes.concurrent-consume']),
  broken('lost-guess-count', 'counts a wrong code from a count read before an await', [
    'codes.concurrent-guesses',
  ]),
  broken('uncounted', 'never counts a wrong code', [
    'codes.mismatch-until-exhausted',
    'codes.single-attempt',
  ]),
  broken('purpose-blind', 'consumes a code presented for another purpose', ['codes.wrong-purpose']),
  broken('expired-counts', 'counts wrong codes presented after expiry', ['codes.expiry']),
  broken('no-supersede', 'keeps every older code of the purpose alive', [
    'codes.supersede',
    'codes.supersede-by-address',
  ]),
  broken('unbounded-sweep', 'sweeps past its limit', ['codes.sweep-bounded']),
  broken('active-key-only', 'compares only the active key version', ['codes.key-rotation']),
  broken('unvalidated', 'stores whatever it is given', ['codes.invalid-input']),
  broken('racy-supersede', 'chooses the codes to supersede before an await', ['codes.concurrent-supersede']),
  broken('outbox-first', 'writes the outbox before it knows the code can be stored', [
    'codes.outbox-with-issue',
  ]),
]
