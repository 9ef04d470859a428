import type { ConformanceCase } from '../suite/suite.js'
import { conformanceCase } from '../suite/suite.js'
import {
  account,
  codeOf,
  digests,
  enable,
  recoveryDigest,
  sealed,
  T0,
  type TotpStoreFixture,
} from './fixture.js'

type Case = ConformanceCase<TotpStoreFixture>

export const recoveryCases: readonly Case[] = [
  conformanceCase(
    'recovery.redeem-once',
    'each stored digest redeems once, only for its own account, and the count follows',
    async ({ store }, check) => {
      const [accountId, other] = [account(), account()]
      const set = digests(10)
      await enable(store, accountId, { codes: set })
      await enable(store, other, { codes: digests(10) })
      check((await store.countRecoveryCodes(accountId)) === 10, 'the first set does not hold 10 codes')
      const [first, second] = set as [string, string]
      check(
        !(await store.redeemRecoveryCode({ accountId: other, candidates: [first] })),
        'another account redeemed it',
      )
      check(
        await store.redeemRecoveryCode({ accountId, candidates: [first] }),
        'a stored code did not redeem',
      )
      check(
        !(await store.redeemRecoveryCode({ accountId, candidates: [first] })),
        'a used code redeemed again',
      )
      check(
        await store.redeemRecoveryCode({ accountId, candidates: [recoveryDigest(), second] }),
        'the matching one of several candidates did not redeem',
      )
      check((await store.countRecoveryCodes(accountId)) === 8, 'the count did not follow')
      check((await store.countRecoveryCodes(other)) === 10, "another account's codes changed")
    },
  ),
  conformanceCase(
    'recovery.concurrent-redeem',
    'of 20 concurrent redemptions of one code (two instances when the fixture has a sibling) exactly one wins',
    async ({ store, sibling }, check) => {
      const accountId = account()
      const set = digests(10)
      await enable(store, accountId, { codes: set })
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          (index % 2 === 1 && sibling !== undefined ? sibling : store).redeemRecoveryCode({
            accountId,
            candidates: [set[3] as string],
          }),
        ),
      )
      check(results.filter(Boolean).length === 1, `${results.filter(Boolean).length} redemptions won`)
      check((await store.countRecoveryCodes(accountId)) === 9, 'not exactly one code was used')
    },
  ),
  conformanceCase(
    'recovery.replace-revokes',
    'replacing the set revokes every old code at once, and needs an enabled enrollment',
    async ({ store }, check) => {
      const accountId = account()
      const old = digests(10)
      await enable(store, accountId, { codes: old })
      const fresh = digests(10)
      check(
        await store.replaceRecoveryCodes({ accountId, digests: fresh, now: T0 }),
        'replace answered false',
      )
      for (const digest of old) {
        check(
          !(await store.redeemRecoveryCode({ accountId, candidates: [digest] })),
          'an old code still redeems',
        )
      }
      check((await store.countRecoveryCodes(accountId)) === 10, 'the new set does not hold 10 codes')
      check(
        await store.redeemRecoveryCode({ accountId, candidates: [fresh[0] as string] }),
        'a new code did not redeem',
      )
      const pending = account()
      await store.savePendingTotp({ accountId: pending, sealedSecret: sealed(), now: T0 })
      check(
        !(await store.replaceRecoveryCodes({ accountId: pending, digests: digests(10), now: T0 })),
        'codes were stored for a pending enrollment',
      )
      check((await store.countRecoveryCodes(pending)) === 0, 'a pending enrollment holds codes')
    },
  ),
  conformanceCase(
    'totp.input',
    'malformed input is totp.invalid_input and writes nothing',
    async ({ store }, check) => {
      const accountId = account()
      const bad: [string, () => Promise<unknown>][] = [
        ['blank account', () => store.getTotpEnrollment(' ')],
        [
          'padded account',
          () => store.savePendingTotp({ accountId: ` ${accountId}`, sealedSecret: sealed(), now: T0 }),
        ],
        [
          'plaintext secret',
          () => store.savePendingTotp({ accountId, sealedSecret: 'JBSWY3DPEHPK3PXP', now: T0 }),
        ],
        [
          'invalid date',
          () => store.savePendingTotp({ accountId, sealedSecret: sealed(), now: new Date(Number.NaN) }),
        ],
        ['negative step', () => store.useTotpStep({ accountId, step: -1 })],
        ['fractional step', () => store.useTotpStep({ accountId, step: 1.5 })],
        ['raw code as digest', () => store.redeemRecoveryCode({ accountId, candidates: ['abcd-efgh-jkmn'] })],
        ['no candidates', () => store.redeemRecoveryCode({ accountId, candidates: [] })],
        [
          'duplicate digests',
          () => {
            const digest = recoveryDigest()
            return store.replaceRecoveryCodes({ accountId, digests: [digest, digest], now: T0 })
          },
        ],
      ]
      for (const [name, call] of bad) {
        const code = await codeOf(call())
        check(code === 'totp.invalid_input', `${name}: ${code}`)
      }
      check((await store.getTotpEnrollment(accountId)) === null, 'a refused call wrote an enrollment')
    },
  ),
]
