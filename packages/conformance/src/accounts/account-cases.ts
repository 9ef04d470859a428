import type { AccountStore, CreateAccountOutcome, PasswordRecord } from '@portcullis/core/accounts'
import {
  at,
  concurrently,
  digest,
  expectCode,
  HOUR,
  passwordHash,
  sameTime,
  T0,
  unique,
  username,
} from '../local-accounts/fixture.js'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import type { AccountStoreFixture } from './fixture.js'

type Case = ConformanceCase<AccountStoreFixture>

/** Creates an account (no invite) and returns its record; throws when the store does not create it. */
export async function newAccount(
  store: AccountStore,
  overrides: { username?: string; passwordHash?: string; now?: Date } = {},
): Promise<PasswordRecord> {
  const outcome = await store.createAccount({
    accountId: unique('account'),
    username: overrides.username ?? username(),
    passwordHash: overrides.passwordHash ?? passwordHash(),
    now: overrides.now ?? T0,
  })
  if (outcome.outcome !== 'created') throw new Error(`setup: createAccount answered ${outcome.outcome}`)
  return outcome.account
}

export function sameAccount(a: PasswordRecord | null | undefined, b: PasswordRecord): boolean {
  return (
    a !== null &&
    a !== undefined &&
    a.accountId === b.accountId &&
    a.username === b.username &&
    a.passwordHash === b.passwordHash &&
    a.securityEpoch === b.securityEpoch &&
    sameTime(a.createdAt, b.createdAt) &&
    sameTime(a.updatedAt, b.updatedAt) &&
    sameTime(a.passwordChangedAt, b.passwordChangedAt)
  )
}

const outcomes = (results: readonly CreateAccountOutcome[], outcome: string) =>
  results.filter((result) => result.outcome === outcome).length

async function invite(store: AccountStore, expiresAt = at(HOUR)): Promise<string> {
  const code = digest()
  await store.issueInvite({ digest: code, expiresAt, now: T0 })
  return code
}

export const accountCases: readonly Case[] = [
  conformanceCase(
    'accounts.create-and-find',
    'a created account starts at epoch 1 with every date at now, and is found by username and by id',
    async ({ store }, check) => {
      const request = {
        accountId: unique('account'),
        username: username(),
        passwordHash: passwordHash(),
        now: T0,
      }
      const outcome = await store.createAccount(request)
      check(outcome.outcome === 'created', `createAccount answered ${outcome.outcome}`)
      if (outcome.outcome !== 'created') return
      const expected = {
        ...request,
        securityEpoch: 1,
        status: 'active' as const,
        createdAt: T0,
        updatedAt: T0,
        passwordChangedAt: T0,
      }
      check(sameAccount(outcome.account, expected), 'the created record differs from the request')
      check(
        sameAccount(await store.findPassword({ username: request.username }), expected),
        'not found by username',
      )
      check(
        sameAccount(await store.findPassword({ accountId: request.accountId }), expected),
        'not found by id',
      )
      check((await store.findPassword({ username: username() })) === null, 'an unknown username was found')
      check((await store.findPassword({ accountId: unique('account') })) === null, 'an unknown id was found')
    },
  ),
  conformanceCase(
    'accounts.username-taken',
    'a taken username is refused as username-taken and creates nothing',
    async ({ store }, check) => {
      const first = await newAccount(store)
      const secondId = unique('account')
      const outcome = await store.createAccount({
        accountId: secondId,
        username: first.username,
        passwordHash: passwordHash(),
        now: at(1000),
      })
      check(outcome.outcome === 'username-taken', `second createAccount answered ${outcome.outcome}`)
      check((await store.findPassword({ accountId: secondId })) === null, 'the refused account exists')
      check(
        sameAccount(await store.findPassword({ username: first.username }), first),
        'the first account changed',
      )
    },
  ),
  conformanceCase(
    'accounts.create-race',
    'of 16 concurrent creations with one username exactly one succeeds',
    async (fixture, check) => {
      const name = username()
      const ids = Array.from({ length: 16 }, () => unique('account'))
      const results = await concurrently(fixture, 16, (store, index) =>
        store.createAccount({
          accountId: ids[index] as string,
          username: name,
          passwordHash: passwordHash(),
          now: T0,
        }),
      )
      check(outcomes(results, 'created') === 1, `${outcomes(results, 'created')} creations succeeded`)
      check(outcomes(results, 'username-taken') === 15, 'the losers were not told username-taken')
      const winner = results.find((result) => result.outcome === 'created')
      const found = await fixture.store.findPassword({ username: name })
      check(
        winner?.outcome === 'created' && found?.accountId === winner.account.accountId,
        'the stored account is not the winner',
      )
    },
  ),
  conformanceCase(
    'accounts.invite-single-use',
    'an invite creates one account; reusing it or an unknown invite is invite-invalid',
    async ({ store }, check) => {
      const code = await invite(store)
      const create = (name: string, inviteDigest: string) =>
        store.createAccount({
          accountId: unique('account'),
          username: name,
          passwordHash: passwordHash(),
          now: at(1000),
          invite: { digest: inviteDigest },
        })
      const first = await create(username(), code)
      check(first.outcome === 'created', `first use answered ${first.outcome}`)
      const replayName = username()
      const replay = await create(replayName, code)
      check(replay.outcome === 'invite-invalid', `second use answered ${replay.outcome}`)
      check(
        (await store.findPassword({ username: replayName })) === null,
        'a replayed invite created an account',
      )
      const unknown = await create(username(), digest())
      check(unknown.outcome === 'invite-invalid', `an unknown invite answered ${unknown.outcome}`)
    },
  ),
  conformanceCase(
    'accounts.invite-expiry',
    'an invite works until just before expiresAt and is invite-invalid at expiresAt',
    async ({ store }, check) => {
      const [early, late] = [await invite(store, at(HOUR)), await invite(store, at(HOUR))]
      const create = (inviteDigest: string, now: Date) =>
        store.createAccount({
          accountId: unique('account'),
          username: username(),
          passwordHash: passwordHash(),
          now,
          invite: { digest: inviteDigest },
        })
      const inTime = await create(early, at(HOUR - 1))
      check(inTime.outcome === 'created', `1 ms before expiry: ${inTime.outcome}`)
      const expired = await create(late, at(HOUR))
      check(expired.outcome === 'invite-invalid', `at expiry: ${expired.outcome}`)
    },
  ),
  conformanceCase(
    'accounts.invite-kept-on-taken-username',
    'a taken username does not burn the invite, and a bad invite is reported before a taken username',
    async ({ store }, check) => {
      const existing = await newAccount(store)
      const code = await invite(store)
      const request = { passwordHash: passwordHash(), now: at(1000), invite: { digest: code } }
      const taken = await store.createAccount({
        ...request,
        accountId: unique('account'),
        username: existing.username,
      })
      check(taken.outcome === 'username-taken', `taken username with a valid invite: ${taken.outcome}`)
      const retry = await store.createAccount({
        ...request,
        accountId: unique('account'),
        username: username(),
      })
      check(retry.outcome === 'created', `the invite was burned by a taken username: ${retry.outcome}`)
      const both = await store.createAccount({
        ...request,
        accountId: unique('account'),
        username: existing.username,
        invite: { digest: digest() },
      })
      check(both.outcome === 'invite-invalid', `bad invite and taken username: ${both.outcome}`)
    },
  ),
  conformanceCase(
    'accounts.invite-race',
    'of 16 concurrent creations with one invite exactly one succeeds',
    async (fixture, check) => {
      const code = await invite(fixture.store)
      const names = Array.from({ length: 16 }, () => username())
      const results = await concurrently(fixture, 16, (store, index) =>
        store.createAccount({
          accountId: unique('account'),
          username: names[index] as string,
          passwordHash: passwordHash(),
          now: at(1000),
          invite: { digest: code },
        }),
      )
      check(outcomes(results, 'created') === 1, `${outcomes(results, 'created')} creations succeeded`)
      check(outcomes(results, 'invite-invalid') === 15, 'the losers were not told invite-invalid')
      const found = await Promise.all(names.map((name) => fixture.store.findPassword({ username: name })))
      check(found.filter((account) => account !== null).length === 1, 'not exactly one account exists')
    },
  ),
  conformanceCase(
    'accounts.duplicates',
    'a stored invite digest or account id is local.store_duplicate and changes nothing',
    async ({ store }, check) => {
      const code = await invite(store, at(HOUR))
      await expectCode(
        check,
        store.issueInvite({ digest: code, expiresAt: at(2 * HOUR), now: T0 }),
        'local.store_duplicate',
        'issueInvite with a stored digest',
      )
      const existing = await newAccount(store)
      const otherName = username()
      await expectCode(
        check,
        store.createAccount({
          accountId: existing.accountId,
          username: otherName,
          passwordHash: passwordHash(),
          now: T0,
        }),
        'local.store_duplicate',
        'createAccount with a stored accountId',
      )
      check(
        (await store.findPassword({ username: otherName })) === null,
        'the duplicate id created an account',
      )
      check(
        sameAccount(await store.findPassword({ accountId: existing.accountId }), existing),
        'the account changed',
      )
      const late = await store.createAccount({
        accountId: unique('account'),
        username: username(),
        passwordHash: passwordHash(),
        now: at(HOUR + 1),
        invite: { digest: code },
      })
      check(late.outcome === 'invite-invalid', 'the duplicate issue extended the first invite')
    },
  ),
]
