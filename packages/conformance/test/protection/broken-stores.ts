import { randomBytes } from 'node:crypto'
import { transactions } from '@portcullis/core/oauth'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import type { OAuthTransactionStoreSubject } from '../../src/protection/index.js'

type OAuthTransaction = transactions.OAuthTransaction
type OAuthTransactionKey = transactions.OAuthTransactionKey
type Sealed = transactions.SealedOAuthTransaction

function protector() {
  return new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('v1', randomBytes(32)),
  })
}

/** The reference store. */
export function memorySubject(): OAuthTransactionStoreSubject {
  const store = new transactions.MemoryOAuthTransactionStore({ protector: protector() })
  return { store, inspectStoredForm: () => store.storedForm() }
}

export interface StoreFlaws {
  /** Lookup and delete are separated by an await. */
  readonly nonAtomicConsume?: boolean
  /** `now` is ignored. */
  readonly neverExpires?: boolean
  /** Records are kept unsealed. */
  readonly plaintextAtRest?: boolean
  /** Records are found by state digest alone and deleted before the rest of the key is compared. */
  readonly burnsOnMiss?: boolean
  /** A second create under the same key replaces the first. */
  readonly overwrites?: boolean
  /** The inspector shows nothing. */
  readonly blindInspector?: boolean
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

/** A hand-written Map-backed store whose flaws are switched on one at a time. */
export class HandWrittenStore implements transactions.OAuthTransactionStore {
  readonly records = new Map<string, Sealed | OAuthTransaction>()
  readonly #protector = protector()
  constructor(readonly flaws: StoreFlaws = {}) {}

  #id(key: OAuthTransactionKey): string {
    return this.flaws.burnsOnMiss
      ? hex(key.stateDigest)
      : `${hex(key.stateDigest)}${hex(key.bindingDigest)}${key.provider}`
  }

  async create(transaction: OAuthTransaction): Promise<void> {
    const record = this.flaws.plaintextAtRest
      ? transaction
      : await transactions.sealOAuthTransaction(this.#protector, transaction)
    const id = this.#id(transaction)
    if (this.records.has(id) && !this.flaws.overwrites) throw new Error('duplicate transaction')
    this.records.set(id, record)
  }

  async consume(key: OAuthTransactionKey, now: Date): Promise<OAuthTransaction | null> {
    const id = this.#id(key)
    const record = this.records.get(id)
    if (record === undefined) return null
    if (this.flaws.nonAtomicConsume) await new Promise((resolve) => setImmediate(resolve))
    this.records.delete(id)
    if (!this.flaws.neverExpires && now.getTime() >= record.expiresAt.getTime()) return null
    if (hex(record.bindingDigest) !== hex(key.bindingDigest) || record.provider !== key.provider) return null
    return record instanceof transactions.OAuthTransaction
      ? record
      : transactions.openOAuthTransaction(this.#protector, record)
  }
}

export function handWrittenStoreSubject(flaws: StoreFlaws = {}): OAuthTransactionStoreSubject {
  const store = new HandWrittenStore(flaws)
  return { store, inspectStoredForm: () => (flaws.blindInspector ? {} : [...store.records.values()]) }
}
