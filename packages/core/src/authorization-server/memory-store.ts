import type { AccountRecords } from '../accounts/port.js'
import { InvalidInputError } from '../errors/portcullis-error.js'
import type { MemoryMailOutbox } from '../mail/memory-outbox.js'
import type { RevocationNotices } from '../revocation/revocation-notices.js'
import {
  stageSecurityLog,
  validateSecurityLogEntries,
  type WithSecurityLog,
} from '../security-log/in-transaction.js'
import type { MemorySecurityLog } from '../security-log/memory.js'
import { stageServerOutbox, validateServerChange } from './change.js'
import { checkedEntry, grantSummaryOf, indexOf, isEntryKey } from './entries.js'
import type {
  OAuthGrantStatus,
  OAuthGrantSummary,
  OAuthGrants,
  OAuthServerChange,
  OAuthServerConsumeOutcome,
  OAuthServerEntry,
  OAuthServerEntryKey,
  OAuthServerStore,
  StoredOAuthServerEntry,
} from './port.js'

export interface MemoryOAuthServerStoreOptions {
  /** Where grants read their account's status and security epoch. */
  readonly accounts: Pick<AccountRecords, 'getAccount'>
  /** Receives a `grant` notice whenever a grant is revoked. */
  readonly notices?: RevocationNotices
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly clock?: () => number
  /** Where a disconnection's `securityLog` entries are written, in its step (`WithSecurityLog`). */
  readonly securityLog?: MemorySecurityLog
  /**
   * Where a grant's `outbox` entries (an MCP client connected) are written, in the grant's step. Without
   * it, an upsert that carries entries is refused (`oauth_server.outbox_not_configured`) and saves nothing.
   */
  readonly outbox?: MemoryMailOutbox
}

interface Row {
  readonly entry: OAuthServerEntry
  readonly consumedAt: Date | undefined
  readonly createdAt: Date
  /** For `Grant` entries: the account's security epoch when the grant was saved. */
  readonly securityEpoch: number | undefined
}

const keyOf = (model: string, id: string) => `${model}\u0000${id}`

/** `OAuthServerStore` and `OAuthGrants` in memory, for tests and single-instance applications. */
export class MemoryOAuthServerStore implements OAuthServerStore, OAuthGrants {
  readonly #rows = new Map<string, Row>()
  readonly #lastUsed = new Map<string, Date>()
  readonly #accounts: Pick<AccountRecords, 'getAccount'>
  readonly #notices: RevocationNotices | undefined
  readonly #securityLog: MemorySecurityLog | undefined
  readonly #outbox: MemoryMailOutbox | undefined
  readonly #clock: () => number

  constructor(options: MemoryOAuthServerStoreOptions) {
    if (typeof options?.accounts?.getAccount !== 'function') {
      throw new InvalidInputError('oauth_server.invalid_store', 'accounts must have getAccount')
    }
    this.#accounts = options.accounts
    this.#notices = options.notices
    this.#clock = options.clock ?? Date.now
    this.#securityLog = options.securityLog
    this.#outbox = options.outbox
  }

  /** Whether `disconnect` takes `securityLog` entries (a `MemorySecurityLog` was given). */
  get securityLogInTransaction(): boolean {
    return this.#securityLog !== undefined
  }

  async upsert(entry: OAuthServerEntry, change?: OAuthServerChange): Promise<void> {
    const checked = checkedEntry(entry)
    const write = stageServerOutbox(this.#outbox, validateServerChange(checked, change))
    const key = keyOf(checked.model, checked.id)
    const now = new Date(this.#clock())
    let securityEpoch: number | undefined
    const index = indexOf(checked)
    if (checked.model === 'Grant' && index.accountId !== undefined) {
      securityEpoch = (await this.#accounts.getAccount(index.accountId))?.securityEpoch
    }
    const previous = this.#rows.get(key)
    this.#rows.set(key, {
      entry: structuredClone(checked),
      consumedAt: previous?.consumedAt,
      createdAt: previous?.createdAt ?? now,
      securityEpoch,
    })
    write()
    if (index.grantId !== undefined && checked.model !== 'Grant') this.#lastUsed.set(index.grantId, now)
  }

  async find(model: string, key: OAuthServerEntryKey): Promise<StoredOAuthServerEntry | undefined> {
    const row = this.#lookup(model, key)
    if (row === undefined) return undefined
    return { ...structuredClone(row.entry), consumedAt: row.consumedAt }
  }

  async consume(model: string, id: string): Promise<OAuthServerConsumeOutcome> {
    if (!isEntryKey(model) || !isEntryKey(id)) return 'missing'
    const key = keyOf(model, id)
    const row = this.#live(this.#rows.get(key))
    if (row === undefined) return 'missing'
    if (row.consumedAt !== undefined) return 'already-consumed'
    this.#rows.set(key, { ...row, consumedAt: new Date(this.#clock()) })
    return 'consumed'
  }

  async rotate(model: string, id: string, replacement: OAuthServerEntry): Promise<OAuthServerConsumeOutcome> {
    const checked = checkedEntry(replacement)
    if (!isEntryKey(model) || !isEntryKey(id)) return 'missing'
    const key = keyOf(model, id)
    const row = this.#live(this.#rows.get(key))
    if (row === undefined) return 'missing'
    if (row.consumedAt !== undefined) return 'already-consumed'
    // Marked before the replacement's account read yields, so a concurrent rotation finds it consumed;
    // put back when saving the replacement fails.
    const marked = { ...row, consumedAt: new Date(this.#clock()) }
    this.#rows.set(key, marked)
    try {
      await this.upsert(checked)
    } catch (error) {
      if (this.#rows.get(key) === marked) this.#rows.set(key, row)
      throw error
    }
    return 'consumed'
  }

  async destroy(model: string, id: string): Promise<void> {
    this.#rows.delete(keyOf(model, id))
  }

  async revokeGrant(grantId: string): Promise<void> {
    if (!isEntryKey(grantId)) throw new InvalidInputError('oauth_server.invalid_entry', 'not a grant id')
    this.#removeGrant(grantId)
    await this.#notices?.publish({ kind: 'grant', grantId })
  }

  #removeGrant(grantId: string): void {
    for (const [key, row] of this.#rows) {
      if (
        indexOf(row.entry).grantId === grantId ||
        (row.entry.model === 'Grant' && row.entry.id === grantId)
      ) {
        this.#rows.delete(key)
      }
    }
    this.#lastUsed.delete(grantId)
  }

  async list(accountId: string): Promise<readonly OAuthGrantSummary[]> {
    const summaries: OAuthGrantSummary[] = []
    for (const row of this.#rows.values()) {
      if (row.entry.model !== 'Grant' || this.#live(row) === undefined) continue
      if (indexOf(row.entry).accountId !== accountId) continue
      if (!(await this.#active(row, accountId))) continue
      summaries.push(grantSummaryOf(row.entry, row.createdAt, this.#lastUsed.get(row.entry.id)))
    }
    return summaries.sort(
      (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.grantId < b.grantId ? -1 : 1),
    )
  }

  async disconnect(accountId: string, grantId: string, change?: WithSecurityLog): Promise<boolean> {
    const writeLog = stageSecurityLog(
      this.#securityLog,
      validateSecurityLogEntries(change?.securityLog),
      'MemoryOAuthServerStore',
    )
    const row = this.#live(this.#rows.get(keyOf('Grant', grantId)))
    if (row === undefined || indexOf(row.entry).accountId !== accountId) return false
    if (!isEntryKey(grantId)) throw new InvalidInputError('oauth_server.invalid_entry', 'not a grant id')
    this.#removeGrant(grantId)
    writeLog()
    await this.#notices?.publish({ kind: 'grant', grantId })
    return true
  }

  async status(grantId: string): Promise<OAuthGrantStatus | undefined> {
    const row = this.#live(this.#rows.get(keyOf('Grant', grantId)))
    if (row === undefined) return undefined
    const { accountId, clientId } = indexOf(row.entry)
    if (accountId === undefined || clientId === undefined) return undefined
    if (!(await this.#active(row, accountId))) return undefined
    return { grantId, accountId, clientId }
  }

  async #active(row: Row, accountId: string): Promise<boolean> {
    const account = await this.#accounts.getAccount(accountId)
    return account !== null && account.status === 'active' && account.securityEpoch === row.securityEpoch
  }

  #lookup(model: string, key: OAuthServerEntryKey): Row | undefined {
    if (!isEntryKey(model) || typeof key !== 'object' || key === null) return undefined
    if ('id' in key) return isEntryKey(key.id) ? this.#live(this.#rows.get(keyOf(model, key.id))) : undefined
    const [field, wanted] =
      'uid' in key
        ? (['uid', key.uid] as const)
        : 'userCode' in key
          ? (['userCode', key.userCode] as const)
          : [undefined, undefined]
    if (field === undefined || !isEntryKey(wanted)) return undefined
    for (const row of this.#rows.values()) {
      if (row.entry.model === model && indexOf(row.entry)[field] === wanted && this.#live(row)) return row
    }
    return undefined
  }

  #live(row: Row | undefined): Row | undefined {
    if (row === undefined) return undefined
    const { expiresAt } = row.entry
    return expiresAt !== undefined && expiresAt.getTime() <= this.#clock() ? undefined : row
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemoryOAuthServerStore { entries: ${this.#rows.size} }`
  }
}
