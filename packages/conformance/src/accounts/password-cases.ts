import { inspect } from 'node:util'
import {
  at,
  BAD_DATES,
  BAD_DIGESTS,
  BAD_IDS,
  concurrently,
  digest,
  expectCode,
  HOUR,
  label,
  loose,
  passwordHash,
  sameTime,
  T0,
  unique,
  username,
} from '../local-accounts/fixture.js'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { newAccount, sameAccount } from './account-cases.js'
import type { AccountStoreFixture } from './fixture.js'

type Case = ConformanceCase<AccountStoreFixture>

const INVALID = 'local.invalid_input'

export const passwordCases: readonly Case[] = [
  conformanceCase(
    'accounts.set-password',
    'setPassword replaces the hash and the dates, bumps the epoch only when asked, and answers null for an unknown account',
    async ({ store }, check) => {
      const account = await newAccount(store)
      const [first, second] = [passwordHash('first'), passwordHash('second')]
      const kept = await store.setPassword({
        accountId: account.accountId,
        passwordHash: first,
        now: at(1000),
        bumpEpoch: false,
      })
      check(
        kept !== null && kept.passwordHash === first && kept.securityEpoch === 1,
        'a change without bumpEpoch did not keep epoch 1',
      )
      check(
        sameTime(kept?.updatedAt, at(1000)) && sameTime(kept?.passwordChangedAt, at(1000)),
        'dates not updated',
      )
      check(sameTime(kept?.createdAt, T0), 'createdAt changed')
      const bumped = await store.setPassword({
        accountId: account.accountId,
        passwordHash: second,
        now: at(2000),
        bumpEpoch: true,
      })
      check(bumped?.securityEpoch === 2, `bumpEpoch gave epoch ${bumped?.securityEpoch}`)
      check(
        sameAccount(await store.findPassword({ accountId: account.accountId }), bumped ?? account),
        'not stored',
      )
      const unknown = await store.setPassword({
        accountId: unique('account'),
        passwordHash: first,
        now: T0,
        bumpEpoch: true,
      })
      check(unknown === null, 'an unknown account was updated')
    },
  ),
  conformanceCase(
    'accounts.expected-password-hash',
    'with expectedPasswordHash the write happens only while the stored hash is that one; a rehash keeps passwordChangedAt',
    async ({ store }, check) => {
      const account = await newAccount(store)
      const stale = await store.setPassword({
        accountId: account.accountId,
        passwordHash: passwordHash(),
        now: at(1000),
        expectedPasswordHash: passwordHash('other'),
        bumpEpoch: false,
      })
      check(stale === null, 'a write with a stale expectedPasswordHash succeeded')
      check(
        sameAccount(await store.findPassword({ accountId: account.accountId }), account),
        'a refused write changed the account',
      )
      const rehashed = passwordHash('rehashed')
      const result = await store.setPassword({
        accountId: account.accountId,
        passwordHash: rehashed,
        now: at(2000),
        expectedPasswordHash: account.passwordHash,
        bumpEpoch: false,
        rehash: true,
      })
      check(result?.passwordHash === rehashed, 'a write with the current expectedPasswordHash failed')
      check(sameTime(result?.passwordChangedAt, T0), 'a rehash moved passwordChangedAt')
      check(
        sameTime(result?.updatedAt, at(2000)) && result?.securityEpoch === 1,
        'a rehash changed the epoch or kept updatedAt',
      )
    },
  ),
  conformanceCase(
    'accounts.set-password-race',
    'of 16 concurrent writes expecting the same hash exactly one succeeds, and its hash is stored',
    async (fixture, check) => {
      const account = await newAccount(fixture.store)
      const hashes = Array.from({ length: 16 }, (_, index) => passwordHash(`race-${index}`))
      const results = await concurrently(fixture, 16, (store, index) =>
        store.setPassword({
          accountId: account.accountId,
          passwordHash: hashes[index] as string,
          now: at(1000 + index),
          expectedPasswordHash: account.passwordHash,
          bumpEpoch: true,
        }),
      )
      const winners = results.filter((result) => result !== null)
      check(winners.length === 1, `${winners.length} writes succeeded`)
      const stored = await fixture.store.findPassword({ accountId: account.accountId })
      check(stored?.passwordHash === winners[0]?.passwordHash, "the stored hash is not the winner's")
      check(stored?.securityEpoch === 2, `the epoch is ${stored?.securityEpoch} after one bumping write`)
    },
  ),
  conformanceCase(
    'accounts.epoch-concurrent-bumps',
    'bumpSecurityEpoch answers the new epoch; 16 concurrent bumps and password changes lose no increment',
    async (fixture, check) => {
      const account = await newAccount(fixture.store)
      check(
        (await fixture.store.bumpSecurityEpoch({ accountId: account.accountId, now: at(1) })) === 2,
        'first bump',
      )
      const results = await concurrently(fixture, 16, (store, index) =>
        index % 4 === 0
          ? store
              .setPassword({
                accountId: account.accountId,
                passwordHash: passwordHash(),
                now: at(2),
                bumpEpoch: true,
              })
              .then((updated) => updated?.securityEpoch ?? null)
          : store.bumpSecurityEpoch({ accountId: account.accountId, now: at(2) }),
      )
      const epochs = results.filter((epoch): epoch is number => epoch !== null).sort((a, b) => a - b)
      check(
        epochs.join() === Array.from({ length: 16 }, (_, index) => index + 3).join(),
        `epochs ${epochs.join()}`,
      )
      const stored = await fixture.store.findPassword({ accountId: account.accountId })
      check(stored?.securityEpoch === 18, `stored epoch ${stored?.securityEpoch}, expected 18`)
      const unknown = await fixture.store.bumpSecurityEpoch({ accountId: unique('account'), now: T0 })
      check(unknown === null, 'an unknown account was bumped')
    },
  ),
  conformanceCase(
    'accounts.hash-not-shown',
    'account records never show the password hash in util.inspect or JSON',
    async ({ store }, check) => {
      const account = await newAccount(store)
      const found = await store.findPassword({ accountId: account.accountId })
      for (const record of [account, found]) {
        check(!inspect(record, { depth: 5 }).includes(account.passwordHash), 'util.inspect shows the hash')
        check(!JSON.stringify(record).includes(account.passwordHash), 'JSON shows the hash')
      }
    },
  ),
  conformanceCase(
    'accounts.input',
    'malformed ids, usernames, hashes, digests, flags and dates are typed invalid-input errors and write nothing',
    async ({ store }, check) => {
      const account = await newAccount(store)
      const create = (overrides: Record<string, unknown>) =>
        store.createAccount(
          loose({
            accountId: unique('account'),
            username: username(),
            passwordHash: passwordHash(),
            now: T0,
            ...overrides,
          }),
        )
      for (const bad of BAD_IDS) {
        await expectCode(check, create({ accountId: bad }), INVALID, `createAccount accountId ${label(bad)}`)
        await expectCode(check, store.findPassword(loose({ accountId: bad })), INVALID, `find ${label(bad)}`)
        await expectCode(
          check,
          store.bumpSecurityEpoch(loose({ accountId: bad, now: T0 })),
          INVALID,
          `bump ${label(bad)}`,
        )
      }
      const name = username()
      for (const bad of [
        '',
        '  ',
        ` ${name}`,
        name.toUpperCase(),
        'two words',
        'x'.repeat(65),
        7,
        undefined,
      ]) {
        await expectCode(check, create({ username: bad }), 'local.invalid_username', `username ${label(bad)}`)
      }
      await expectCode(check, create({ username: name, passwordHash: '' }), INVALID, 'empty passwordHash')
      await expectCode(
        check,
        create({ username: name, passwordHash: 'x'.repeat(1025) }),
        INVALID,
        'huge passwordHash',
      )
      await expectCode(check, create({ username: name, passwordHash: 12 }), INVALID, 'numeric passwordHash')
      for (const bad of BAD_DIGESTS) {
        await expectCode(
          check,
          create({ username: name, invite: { digest: bad } }),
          INVALID,
          `invite ${label(bad)}`,
        )
        await expectCode(
          check,
          store.issueInvite(loose({ digest: bad, expiresAt: at(HOUR), now: T0 })),
          INVALID,
          'issue',
        )
      }
      for (const bad of BAD_DATES) {
        await expectCode(check, create({ username: name, now: bad }), INVALID, `now ${label(bad)}`)
      }
      check((await store.findPassword({ username: name })) === null, 'a refused creation stored the account')
      await expectCode(check, store.findPassword(loose({})), INVALID, 'find with neither key')
      await expectCode(
        check,
        store.findPassword(loose({ username: account.username, accountId: account.accountId })),
        INVALID,
        'find with both keys',
      )
      const change = { accountId: account.accountId, passwordHash: passwordHash(), now: at(1) }
      for (const bumpEpoch of [undefined, 'yes', 1]) {
        await expectCode(
          check,
          store.setPassword(loose({ ...change, bumpEpoch })),
          INVALID,
          `bumpEpoch ${label(bumpEpoch)}`,
        )
      }
      await expectCode(
        check,
        store.setPassword({ ...change, bumpEpoch: false, rehash: true }),
        INVALID,
        'rehash without expectation',
      )
      await expectCode(
        check,
        store.setPassword({
          ...change,
          bumpEpoch: true,
          rehash: true,
          expectedPasswordHash: account.passwordHash,
        }),
        INVALID,
        'rehash that bumps the epoch',
      )
      await expectCode(
        check,
        store.issueInvite({ digest: digest(), expiresAt: T0, now: T0 }),
        INVALID,
        'an invite expiring at now',
      )
      check(
        sameAccount(await store.findPassword({ accountId: account.accountId }), account),
        'refused writes changed the account',
      )
    },
  ),
]
