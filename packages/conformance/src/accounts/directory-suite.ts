import { randomBytes } from 'node:crypto'
import type {
  AccountDirectory,
  AccountSearchHit,
  AccountSearchQuery,
  AccountStore,
} from '@portcullis/core/accounts'
import { isPortcullisError } from '@portcullis/core/errors'
import { passwordHash, T0, unique } from '../local-accounts/fixture.js'
import { assertSuite, type ConformanceCase, type ConformanceSuite, conformanceCase } from '../suite/suite.js'

/**
 * What each case gets: a store to make accounts with and the directory that searches the same accounts
 * (the built-in stores are both). Cases use fresh names, so stores over one shared database never see
 * each other's matches.
 */
export interface AccountDirectoryFixture {
  readonly store: AccountStore
  readonly directory: AccountDirectory
  readonly dispose?: () => void | Promise<void>
}

export type AccountDirectoryFactory = () => AccountDirectoryFixture | Promise<AccountDirectoryFixture>

type Case = ConformanceCase<AccountDirectoryFixture>

/** A fresh lower-case prefix no other case (or run over the same database) shares. */
const freshPrefix = () => `q${randomBytes(5).toString('hex')}`

async function account(
  store: AccountStore,
  username: string,
  address?: string,
  verified = false,
): Promise<string> {
  const accountId = unique('account')
  const created = await store.createAccount({ accountId, username, passwordHash: passwordHash(), now: T0 })
  if (created.outcome !== 'created') throw new Error(`setup: createAccount answered ${created.outcome}`)
  if (address !== undefined) {
    const added = await store.addEmailAddress({ accountId, address, now: T0 })
    if (added.outcome !== 'added') throw new Error(`setup: addEmailAddress answered ${added.outcome}`)
    if (verified) await store.verifyEmailAddress({ accountId, address, now: T0 })
  }
  return accountId
}

const shown = (hits: readonly AccountSearchHit[]) =>
  hits.map((hit) => `${hit.matched}:${hit.matched === 'email' ? hit.email : hit.username}`).join(',')

async function errorCode(operation: () => Promise<unknown>): Promise<string> {
  try {
    await operation()
    return 'no error'
  } catch (error) {
    return isPortcullisError(error) ? error.code : 'untyped-error'
  }
}

export const accountDirectoryCases: readonly Case[] = [
  conformanceCase(
    'accounts.directory.exact',
    'an id, a username and an address (verified or not) each find exactly their accounts, with status and primary address',
    async ({ store, directory }, check) => {
      const p = freshPrefix()
      const alice = await account(store, `${p}alice`, `${p}alice@example.com`, true)
      const bob = await account(store, `${p}bob`, `${p}shared@example.com`)
      const carol = await account(store, `${p}carol`, `${p}shared@example.com`)
      const search = (query: AccountSearchQuery) => directory.searchAccounts(query)
      const byId = await search({ by: 'id', value: alice })
      check(
        byId.length === 1 && byId[0]?.account.accountId === alice,
        'the id search did not find the account',
      )
      check(byId[0]?.username === `${p}alice`, 'the hit does not carry the username')
      check(byId[0]?.email === `${p}alice@example.com`, 'the hit does not carry the primary address')
      check(
        byId[0]?.account.status === 'active' && byId[0]?.account.securityEpoch === 1,
        'status or epoch wrong',
      )
      const byName = await search({ by: 'username', value: `${p.toUpperCase()}BOB` })
      check(
        byName.length === 1 && byName[0]?.account.accountId === bob,
        'the username search is not exact and normalized',
      )
      const shared = await search({ by: 'email', value: `${p}shared@example.com` })
      const ids = shared.map((hit) => hit.account.accountId)
      check(
        ids.length === 2 && ids.includes(bob) && ids.includes(carol),
        'an unverified address did not find both holders',
      )
      check((await search({ by: 'id', value: `${p}-nobody` })).length === 0, 'an unknown id found something')
      check(
        (await search({ by: 'username', value: `${p}al` })).length === 0,
        'a username search matched a prefix',
      )
      await store.setAccountStatus({ accountId: alice, status: 'disabled', now: T0 })
      const disabled = await search({ by: 'id', value: alice })
      check(
        disabled[0]?.account.status === 'disabled' && disabled[0]?.account.securityEpoch === 2,
        'status not current',
      )
    },
  ),
  conformanceCase(
    'accounts.directory.prefix',
    'a prefix finds usernames and addresses that start with it, in code-point order, one hit per match, cut at the limit',
    async ({ store, directory }, check) => {
      const p = freshPrefix()
      await account(store, `${p}b`)
      await account(store, `${p}a`, `${p}aa@example.com`)
      await account(store, `${p}c`)
      await account(store, `${p}é`)
      await account(store, `${p}z`)
      const all = await directory.searchAccounts({ by: 'prefix', value: p, limit: 100 })
      check(
        shown(all) ===
          [
            `username:${p}a`,
            `email:${p}aa@example.com`,
            `username:${p}b`,
            `username:${p}c`,
            `username:${p}z`,
            `username:${p}é`,
          ].join(','),
        `order or matches wrong: ${shown(all)}`,
      )
      const two = await directory.searchAccounts({ by: 'prefix', value: p.toUpperCase(), limit: 2 })
      check(shown(two) === `username:${p}a,email:${p}aa@example.com`, `the limit cut wrongly: ${shown(two)}`)
      const one = await directory.searchAccounts({ by: 'prefix', value: `${p}a` })
      check(shown(one) === `username:${p}a,email:${p}aa@example.com`, `a longer prefix: ${shown(one)}`)
    },
  ),
  conformanceCase(
    'accounts.directory.prefix-literal',
    'pattern characters in a prefix (%, _, \\) match only themselves',
    async ({ store, directory }, check) => {
      const p = freshPrefix()
      await account(store, `${p}_x`)
      await account(store, `${p}ax`)
      await account(store, `${p}%y`)
      await account(store, `${p}\\z`)
      const under = await directory.searchAccounts({ by: 'prefix', value: `${p}_` })
      check(shown(under) === `username:${p}_x`, `_ matched more than itself: ${shown(under)}`)
      const percent = await directory.searchAccounts({ by: 'prefix', value: `${p}%` })
      check(shown(percent) === `username:${p}%y`, `% matched more than itself: ${shown(percent)}`)
      const slash = await directory.searchAccounts({ by: 'prefix', value: `${p}\\` })
      check(shown(slash) === `username:${p}\\z`, `\\ matched more than itself: ${shown(slash)}`)
    },
  ),
  conformanceCase(
    'accounts.directory.invalid-input',
    'malformed searches are typed errors',
    async ({ directory }, check) => {
      const bad: unknown[] = [
        null,
        { by: 'prefix', value: '' },
        { by: 'prefix', value: 'a\u0000b' },
        { by: 'prefix', value: 'x'.repeat(255) },
        { by: 'prefix', value: 'ok', limit: 0 },
        { by: 'prefix', value: 'ok', limit: 101 },
        { by: 'prefix', value: 'ok', limit: 1.5 },
        { by: 'somewhere', value: 'ok' },
        { by: 'id', value: ' padded ' },
        { by: 'email', value: 'not an address' },
        { by: 'username', value: 'has space' },
      ]
      for (const query of bad) {
        const code = await errorCode(() => directory.searchAccounts(query as AccountSearchQuery))
        check(code !== 'no error' && code !== 'untyped-error', `${JSON.stringify(query)} answered ${code}`)
      }
    },
  ),
]

/** The `AccountDirectory` suite: exact searches, prefixes in code-point order, literal patterns, typed errors. */
export function accountDirectorySuite(
  factory: AccountDirectoryFactory,
): ConformanceSuite<AccountDirectoryFixture> {
  return {
    name: 'AccountDirectory conformance',
    cases: accountDirectoryCases,
    createContext: () => factory(),
    disposeContext: (fixture) => fixture.dispose?.(),
  }
}

/** Runs every `AccountDirectory` case; throws an `AggregateError` naming each violated invariant. */
export function assertAccountDirectoryConformance(factory: AccountDirectoryFactory): Promise<void> {
  return assertSuite(accountDirectorySuite(factory))
}
