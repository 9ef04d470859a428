import type { AccountStore } from '@portcullis/core/accounts'
import type { ApiKeyStore } from '@portcullis/core/api-keys'
import type { OAuthGrants, OAuthServerStore } from '@portcullis/core/authorization-server'
import type { SecurityLog, SecurityLogEntry } from '@portcullis/core/security-log'
import { newAccount } from '../accounts/account-cases.js'
import { sampleApiKeyRecord } from '../api-keys/api-key-store-conformance.js'
import { grantEntry, SuiteClock } from '../authorization-server/fixture.js'
import { expectCode, unique } from '../local-accounts/fixture.js'
import { assertSuite, type ConformanceCase, type ConformanceSuite, conformanceCase } from '../suite/suite.js'
import { entry } from './fixture.js'

/**
 * Stores that write a change's security-log entries in the change's own transaction (`WithSecurityLog`,
 * `securityLogInTransaction`), and the log those entries land in. Memory: the stores given the same
 * `MemorySecurityLog`; Postgres: the stores and `PostgresSecurityLog` on one database.
 */
export interface SecurityLogInTransactionFixture {
  readonly log: SecurityLog
  readonly accounts: AccountStore
  readonly apiKeys: ApiKeyStore
  readonly grants: OAuthGrants & Pick<OAuthServerStore, 'upsert'>
  dispose?(): Promise<void> | void
}

export type SecurityLogInTransactionFactory = () =>
  | SecurityLogInTransactionFixture
  | Promise<SecurityLogInTransactionFixture>

type Case = ConformanceCase<SecurityLogInTransactionFixture>

const recordFor = (accountId: string) => entry({ at: new Date(), accountId, type: 'administration.test' })

async function idsOf(log: SecurityLog, accountId: string): Promise<readonly string[]> {
  const page = await log.listForAccount({ accountId, limit: 50 })
  return page.entries.map((each: SecurityLogEntry) => each.id)
}

const cases: readonly Case[] = [
  conformanceCase(
    'security-log.in-transaction.declared',
    'each store says it writes entries with its changes (securityLogInTransaction)',
    ({ accounts, apiKeys, grants }, check) => {
      for (const [name, store] of Object.entries({ accounts, apiKeys, grants })) {
        const flag = (store as { securityLogInTransaction?: unknown }).securityLogInTransaction
        check(flag === true, `${name}.securityLogInTransaction is ${String(flag)}`)
      }
    },
  ),
  conformanceCase(
    'security-log.in-transaction.account-changes',
    'disabling, enabling, moving the epoch and deleting write their entry with the change, exactly once',
    async ({ log, accounts }, check) => {
      const { accountId } = await newAccount(accounts)
      const written: string[] = []
      for (const status of ['disabled', 'active'] as const) {
        const record = recordFor(accountId)
        const account = await accounts.setAccountStatus({
          accountId,
          status,
          now: new Date(),
          securityLog: [record],
        })
        check(account?.status === status, `setAccountStatus(${status}) answered ${account?.status}`)
        written.push(record.id)
      }
      const bump = recordFor(accountId)
      const epoch = await accounts.bumpSecurityEpoch({ accountId, now: new Date(), securityLog: [bump] })
      check(epoch === 3, `the epoch moved to ${epoch}, expected 3`)
      written.push(bump.id)
      const gone = recordFor(accountId)
      const deleted = await accounts.deleteAccount({ accountId, now: new Date(), securityLog: [gone] })
      check(deleted.outcome === 'deleted', `deleteAccount answered ${deleted.outcome}`)
      written.push(gone.id)
      const ids = await idsOf(log, accountId)
      check(ids.length === written.length, `${ids.length} entries in the log, expected ${written.length}`)
      for (const id of written) check(ids.includes(id), `the entry ${id} is missing`)
    },
  ),
  conformanceCase(
    'security-log.in-transaction.no-change-no-entry',
    'a change that does not happen (unknown account, key or grant; a grant of another account) writes no entry',
    async ({ log, accounts, apiKeys, grants }, check) => {
      const { accountId } = await newAccount(accounts)
      const missing = unique('account')
      check(
        (await accounts.setAccountStatus({
          accountId: missing,
          status: 'disabled',
          now: new Date(),
          securityLog: [recordFor(missing)],
        })) === null,
        'setAccountStatus of an unknown account answered an account',
      )
      check(
        (await accounts.bumpSecurityEpoch({
          accountId: missing,
          now: new Date(),
          securityLog: [recordFor(missing)],
        })) === null,
        'bumpSecurityEpoch of an unknown account answered an epoch',
      )
      const outcome = await accounts.deleteAccount({
        accountId: missing,
        now: new Date(),
        securityLog: [recordFor(missing)],
      })
      check(
        outcome.outcome === 'not-found',
        `deleteAccount of an unknown account answered ${outcome.outcome}`,
      )
      await expectCode(
        check,
        apiKeys.revoke(sampleApiKeyRecord().keyId, new Date(), { securityLog: [recordFor(accountId)] }),
        'api_key.not_found',
        'revoking an unknown key',
      )
      const { accountId: owner } = await newAccount(accounts)
      const grant = grantEntry(owner, new SuiteClock())
      await grants.upsert(grant)
      const foreign = await grants.disconnect(accountId, grant.id, { securityLog: [recordFor(accountId)] })
      check(foreign === false, "disconnecting another account's grant answered true")
      check((await grants.status(grant.id))?.accountId === owner, "the other account's grant ended")
      check((await idsOf(log, missing)).length === 0, 'an entry was written for an unknown account')
      check(
        (await idsOf(log, accountId)).length === 0,
        'an entry was written for a change that did not happen',
      )
    },
  ),
  conformanceCase(
    'security-log.in-transaction.key-and-grant',
    'revoking an API key and disconnecting a grant write their entry with the change',
    async ({ log, accounts, apiKeys, grants }, check) => {
      const { accountId } = await newAccount(accounts)
      const key = sampleApiKeyRecord({ ownerId: accountId, ownerKind: 'user' })
      await apiKeys.create(key)
      const revoked = recordFor(accountId)
      await apiKeys.revoke(key.keyId, new Date(), { securityLog: [revoked] })
      const stored = await apiKeys.get(key.keyId)
      check(stored?.revokedAt !== undefined, 'the key was not revoked')
      const grant = grantEntry(accountId, new SuiteClock())
      await grants.upsert(grant)
      const ended = recordFor(accountId)
      check(
        await grants.disconnect(accountId, grant.id, { securityLog: [ended] }),
        'disconnect answered false',
      )
      check((await grants.status(grant.id)) === undefined, 'the grant is still active')
      const ids = await idsOf(log, accountId)
      check(ids.includes(revoked.id), "the key's entry is missing")
      check(ids.includes(ended.id), "the grant's entry is missing")
    },
  ),
  conformanceCase(
    'security-log.in-transaction.malformed-entry',
    'a malformed entry is security_log.invalid_input and the change does not happen',
    async ({ log, accounts }, check) => {
      const { accountId } = await newAccount(accounts)
      const bad = { ...recordFor(accountId), id: '' }
      await expectCode(
        check,
        accounts.setAccountStatus({ accountId, status: 'disabled', now: new Date(), securityLog: [bad] }),
        'security_log.invalid_input',
        'disabling with a malformed entry',
      )
      check((await accounts.getAccount(accountId))?.status === 'active', 'the account was disabled anyway')
      check((await idsOf(log, accountId)).length === 0, 'an entry was written')
    },
  ),
]

/** The `WithSecurityLog` suite: a change and its entries land together, a change that does not happen writes none. */
export function securityLogInTransactionSuite(
  factory: SecurityLogInTransactionFactory,
): ConformanceSuite<SecurityLogInTransactionFixture> {
  return {
    name: 'SecurityLog in the change transaction',
    cases,
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/** Runs every case; throws an `AggregateError` naming each violated invariant. */
export function assertSecurityLogInTransactionConformance(
  factory: SecurityLogInTransactionFactory,
): Promise<void> {
  return assertSuite(securityLogInTransactionSuite(factory))
}
