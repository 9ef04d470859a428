import { setImmediate as tick } from 'node:timers/promises'
import {
  type Account,
  type AccountStore,
  type AddPasswordOutcome,
  type CreateAccountOutcome,
  type CreateAccountRequest,
  type DeleteAccountOutcome,
  type PasswordRecord,
  passwordRecord,
  type RemoveSignInMethodOutcome,
  type SetPasswordRequest,
  type SignInMethod,
  validateAccountChange,
  validateCreateAccount,
  validateFindPassword,
  validateIssueInvite,
  validateSetPassword,
} from '@portcullis/core/accounts'
import type { accounts } from '@portcullis/core/oauth'
import { describe, expect, it } from 'vitest'
import { assertSuite, type ConformanceSuite, runSuite } from '../suite/suite.js'
import { accountCases } from './account-cases.js'
import type { AccountStoreFixture } from './fixture.js'
import { passwordCases } from './password-cases.js'

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

const unsupported = (): never => {
  throw new Error('the naive store keeps passwords only')
}

/**
 * A deliberately naive store of password accounts (no provider identities): correct with flaw `none`
 * for the password and invite cases, each other flaw breaks one rule.
 */
class NaiveAccountStore implements AccountStore {
  readonly #accounts = new Map<string, PasswordRecord>()
  readonly #invites = new Map<string, { expiresAt: Date; used: boolean }>()

  constructor(private readonly flaw: Flaw) {}

  #record(fields: PasswordRecord): PasswordRecord {
    return this.flaw === 'shows-hash' ? { ...fields } : passwordRecord(fields)
  }

  async createAccount(request: CreateAccountRequest): Promise<CreateAccountOutcome> {
    const r =
      this.flaw === 'lenient'
        ? { ...request, inviteDigest: request.invite?.digest }
        : validateCreateAccount(request)
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
      status: 'active',
      createdAt: r.now,
      updatedAt: r.now,
      passwordChangedAt: r.now,
    })
    this.#accounts.set(r.accountId, account)
    if (invite !== undefined && this.flaw !== 'reusable-invite') invite.used = true
    return { outcome: 'created', account }
  }

  async findPassword(query: { username: string } | { accountId: string }): Promise<PasswordRecord | null> {
    if (this.flaw !== 'lenient') validateFindPassword(query)
    if ('accountId' in query) return this.#accounts.get(query.accountId) ?? null
    return [...this.#accounts.values()].find((account) => account.username === query.username) ?? null
  }

  async setPassword(request: SetPasswordRequest): Promise<PasswordRecord | null> {
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
    if (this.flaw !== 'lenient') validateAccountChange(request)
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

  async getAccount(accountId: string): Promise<Account | null> {
    const record = this.#accounts.get(accountId)
    return record === undefined ? null : { ...record }
  }

  async listSignInMethods(): Promise<readonly SignInMethod[]> {
    return unsupported()
  }

  async addPassword(): Promise<AddPasswordOutcome> {
    return unsupported()
  }

  async removePassword(): Promise<RemoveSignInMethodOutcome> {
    return unsupported()
  }

  async setAccountStatus(): Promise<Account | null> {
    return unsupported()
  }

  async deleteAccount(): Promise<DeleteAccountOutcome> {
    return unsupported()
  }

  oauth(): accounts.OAuthAccountStore {
    return unsupported()
  }

  async listEmailAddresses(): Promise<never> {
    return unsupported()
  }

  async findAccountByVerifiedEmail(): Promise<never> {
    return unsupported()
  }

  async addEmailAddress(): Promise<never> {
    return unsupported()
  }

  async verifyEmailAddress(): Promise<never> {
    return unsupported()
  }

  async setPrimaryEmailAddress(): Promise<never> {
    return unsupported()
  }

  async removeEmailAddress(): Promise<never> {
    return unsupported()
  }
}

/** The password and invite cases of the `AccountStore` suite: all a password-only store can pass. */
function passwordSuite(store: () => AccountStore): ConformanceSuite<AccountStoreFixture> {
  return {
    name: 'AccountStore conformance (passwords and invites)',
    cases: [...accountCases, ...passwordCases],
    createContext: () => ({ store: store(), protector: unsupported as never }),
  }
}

const broken: readonly { flaw: Flaw; caught: readonly string[] }[] = [
  { flaw: 'check-then-insert', caught: ['accounts.create-race'] },
  { flaw: 'reusable-invite', caught: ['accounts.invite-single-use', 'accounts.invite-race'] },
  { flaw: 'non-atomic-invite', caught: ['accounts.invite-race'] },
  { flaw: 'invite-burned-by-taken-username', caught: ['accounts.invite-kept-on-taken-username'] },
  { flaw: 'username-before-invite', caught: ['accounts.invite-kept-on-taken-username'] },
  {
    flaw: 'ignores-expected-hash',
    caught: ['accounts.expected-password-hash', 'accounts.set-password-race'],
  },
  { flaw: 'rehash-moves-date', caught: ['accounts.expected-password-hash'] },
  { flaw: 'lost-epoch-update', caught: ['accounts.epoch-concurrent-bumps'] },
  { flaw: 'duplicate-overwrites', caught: ['accounts.duplicates'] },
  { flaw: 'shows-hash', caught: ['accounts.hash-not-shown'] },
  { flaw: 'lenient', caught: ['accounts.input'] },
]

describe('AccountStore password and invite cases against deliberately broken stores', () => {
  it('passes the naive store without a flaw', async () => {
    await expect(assertSuite(passwordSuite(() => new NaiveAccountStore('none')))).resolves.toBeUndefined()
  })

  for (const { flaw, caught } of broken) {
    it(`fails "${flaw}" naming ${caught.join(', ')}`, async () => {
      const results = await runSuite(passwordSuite(() => new NaiveAccountStore(flaw)))
      const failed = results.filter((result) => !result.passed).map((result) => result.id)
      expect(failed).toEqual(expect.arrayContaining([...caught]))
    })
  }
})
