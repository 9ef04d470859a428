import { setImmediate as tick } from 'node:timers/promises'
import {
  type CreateLocalAccountOutcome,
  type CreateLocalAccountRequest,
  type LocalAccountRecord,
  type LocalAccountStore,
  localAccountRecord,
  type SetPasswordRequest,
  validateBumpSecurityEpoch,
  validateCreateLocalAccount,
  validateFindLocalAccount,
  validateIssueInvite,
  validateSetPassword,
} from '@portcullis/core/local-accounts'
import { describe, expect, it } from 'vitest'
import { runSuite } from '../suite/suite.js'
import { assertLocalAccountStoreConformance, localAccountStoreSuite } from './index.js'

type Flaw =
  | 'none'
  | 'check-then-insert'
  | 'reusable-invite'
  | 'non-atomic-invite'
  | 'invite-burned-by-taken-username'
  | 'username-before-invite'
  | 'ignores-expected-hash'
  | 'rehash-moves-date'
  | 'lost-epoch-update'
  | 'duplicate-overwrites'
  | 'shows-hash'
  | 'lenient'

/** A deliberately naive store: correct with flaw `none`, each other flaw breaks one rule. */
class NaiveAccountStore implements LocalAccountStore {
  readonly #accounts = new Map<string, LocalAccountRecord>()
  readonly #invites = new Map<string, { expiresAt: Date; used: boolean }>()

  constructor(private readonly flaw: Flaw) {}

  #record(fields: LocalAccountRecord): LocalAccountRecord {
    return this.flaw === 'shows-hash' ? { ...fields } : localAccountRecord(fields)
  }

  async createAccount(request: CreateLocalAccountRequest): Promise<CreateLocalAccountOutcome> {
    const r =
      this.flaw === 'lenient'
        ? { ...request, inviteDigest: request.invite?.digest }
        : validateCreateLocalAccount(request)
    const invite = r.inviteDigest === undefined ? undefined : this.#invites.get(r.inviteDigest)
    const taken = () => [...this.#accounts.values()].some((account) => account.username === r.username)
    if (this.flaw === 'username-before-invite' && taken()) return { outcome: 'username-taken' }
    if (r.inviteDigest !== undefined && (invite === undefined || invite.used || invite.expiresAt <= r.now)) {
      return { outcome: 'invite-invalid' }
    }
    if (invite !== undefined && this.flaw === 'invite-burned-by-taken-username') invite.used = true
    if (this.flaw === 'non-atomic-invite') await tick()
    const wasTaken = taken()
    if (this.flaw === 'check-then-insert') await tick()
    if (wasTaken) return { outcome: 'username-taken' }
    if (this.#accounts.has(r.accountId) && this.flaw !== 'duplicate-overwrites') {
      throw Object.assign(new Error('duplicate'), { code: 'local.store_duplicate' })
    }
    const account = this.#record({
      accountId: r.accountId,
      username: r.username,
      passwordHash: r.passwordHash,
      securityEpoch: 1,
      createdAt: r.now,
      updatedAt: r.now,
      passwordChangedAt: r.now,
    })
    this.#accounts.set(r.accountId, account)
    if (invite !== undefined && this.flaw !== 'reusable-invite') invite.used = true
    return { outcome: 'created', account }
  }

  async findAccount(query: { username: string } | { accountId: string }): Promise<LocalAccountRecord | null> {
    if (this.flaw !== 'lenient') validateFindLocalAccount(query)
    if ('accountId' in query) return this.#accounts.get(query.accountId) ?? null
    return [...this.#accounts.values()].find((account) => account.username === query.username) ?? null
  }

  async setPassword(request: SetPasswordRequest): Promise<LocalAccountRecord | null> {
    const r = this.flaw === 'lenient' ? { rehash: false, ...request } : validateSetPassword(request)
    const account = this.#accounts.get(r.accountId)
    if (account === undefined) return null
    const expected = this.flaw === 'ignores-expected-hash' ? undefined : r.expectedPasswordHash
    if (expected !== undefined && expected !== account.passwordHash) return null
    const updated = this.#record({
      ...account,
      passwordHash: r.passwordHash,
      securityEpoch: account.securityEpoch + (r.bumpEpoch ? 1 : 0),
      updatedAt: r.now,
      passwordChangedAt: r.rehash && this.flaw !== 'rehash-moves-date' ? account.passwordChangedAt : r.now,
    })
    this.#accounts.set(r.accountId, updated)
    return updated
  }

  async bumpSecurityEpoch(request: { accountId: string; now: Date }): Promise<number | null> {
    if (this.flaw !== 'lenient') validateBumpSecurityEpoch(request)
    const before = this.#accounts.get(request.accountId)
    if (before === undefined) return null
    if (this.flaw === 'lost-epoch-update') await tick()
    const current = this.#accounts.get(request.accountId) ?? before
    const epoch = (this.flaw === 'lost-epoch-update' ? before : current).securityEpoch + 1
    this.#accounts.set(
      request.accountId,
      this.#record({ ...current, securityEpoch: epoch, updatedAt: request.now }),
    )
    return epoch
  }

  async issueInvite(request: { digest: string; expiresAt: Date; now: Date }): Promise<void> {
    if (this.flaw !== 'lenient') validateIssueInvite(request)
    if (this.#invites.has(request.digest) && this.flaw !== 'duplicate-overwrites') {
      throw Object.assign(new Error('duplicate'), { code: 'local.store_duplicate' })
    }
    this.#invites.set(request.digest, { expiresAt: request.expiresAt, used: false })
  }
}

const broken: readonly { flaw: Flaw; caught: readonly string[] }[] = [
  { flaw: 'check-then-insert', caught: ['local-accounts.create-race'] },
  { flaw: 'reusable-invite', caught: ['local-accounts.invite-single-use', 'local-accounts.invite-race'] },
  { flaw: 'non-atomic-invite', caught: ['local-accounts.invite-race'] },
  { flaw: 'invite-burned-by-taken-username', caught: ['local-accounts.invite-kept-on-taken-username'] },
  { flaw: 'username-before-invite', caught: ['local-accounts.invite-kept-on-taken-username'] },
  {
    flaw: 'ignores-expected-hash',
    caught: ['local-accounts.expected-password-hash', 'local-accounts.set-password-race'],
  },
  { flaw: 'rehash-moves-date', caught: ['local-accounts.expected-password-hash'] },
  { flaw: 'lost-epoch-update', caught: ['local-accounts.epoch-concurrent-bumps'] },
  { flaw: 'duplicate-overwrites', caught: ['local-accounts.duplicates'] },
  { flaw: 'shows-hash', caught: ['local-accounts.hash-not-shown'] },
  { flaw: 'lenient', caught: ['local-accounts.input'] },
]

describe('LocalAccountStore conformance suite against deliberately broken stores', () => {
  it('passes the naive store without a flaw', async () => {
    await expect(
      assertLocalAccountStoreConformance(() => ({ store: new NaiveAccountStore('none') })),
    ).resolves.toBeUndefined()
  })

  for (const { flaw, caught } of broken) {
    it(`fails "${flaw}" naming ${caught.join(', ')}`, async () => {
      const results = await runSuite(localAccountStoreSuite(() => ({ store: new NaiveAccountStore(flaw) })))
      const failed = results.filter((result) => !result.passed).map((result) => result.id)
      expect(failed).toEqual(expect.arrayContaining([...caught]))
    })
  }
})
