import type { ConformanceCase } from '../suite/suite.js'
import { conformanceCase } from '../suite/suite.js'
import { account, enable, sameEnrollment, sealed, T0, type TotpStoreFixture } from './fixture.js'

type Case = ConformanceCase<TotpStoreFixture>
const later = (ms: number) => new Date(T0.getTime() + ms)

export const enrollmentCases: readonly Case[] = [
  conformanceCase(
    'totp.pending-round-trip',
    'a pending enrollment reads back exactly, replaces an earlier pending one, and touches no other account',
    async ({ store }, check) => {
      const [mine, other] = [account(), account()]
      check((await store.getTotpEnrollment(mine)) === null, 'an unknown account has an enrollment')
      const first = sealed()
      const second = sealed()
      check(
        (await store.savePendingTotp({ accountId: mine, sealedSecret: first, now: T0 })) === 'saved',
        'not saved',
      )
      await store.savePendingTotp({ accountId: other, sealedSecret: sealed(), now: T0 })
      check(
        (await store.savePendingTotp({ accountId: mine, sealedSecret: second, now: later(5) })) === 'saved',
        'a pending enrollment was not replaced',
      )
      const expected = {
        accountId: mine,
        sealedSecret: second,
        status: 'pending' as const,
        createdAt: later(5),
        enabledAt: null,
        lastUsedStep: null,
      }
      check(sameEnrollment(await store.getTotpEnrollment(mine), expected), 'the pending enrollment differs')
      check((await store.getTotpEnrollment(other))?.sealedSecret !== second, 'another account changed')
    },
  ),
  conformanceCase(
    'totp.enable-compare-and-swap',
    'only the pending enrollment holding exactly the confirmed secret is enabled, with the step recorded',
    async ({ store }, check) => {
      const accountId = account()
      const secret = sealed()
      await store.savePendingTotp({ accountId, sealedSecret: secret, now: T0 })
      const enableWith = (sealedSecret: string) =>
        store.enableTotp({ accountId, sealedSecret, step: 77, recoveryCodeDigests: [], now: later(1000) })
      check(!(await enableWith(sealed())), 'another secret enabled the enrollment')
      check((await store.getTotpEnrollment(accountId))?.status === 'pending', 'a refused enable changed it')
      check(await enableWith(secret), 'the confirmed secret did not enable it')
      const expected = {
        accountId,
        sealedSecret: secret,
        status: 'enabled' as const,
        createdAt: T0,
        enabledAt: later(1000),
        lastUsedStep: 77,
      }
      check(
        sameEnrollment(await store.getTotpEnrollment(accountId), expected),
        'the enabled enrollment differs',
      )
      check(!(await enableWith(secret)), 'an enabled enrollment was enabled again')
      check(
        !(await store.enableTotp({
          accountId: account(),
          sealedSecret: secret,
          step: 1,
          recoveryCodeDigests: [],
          now: T0,
        })),
        'an account without an enrollment was enabled',
      )
    },
  ),
  conformanceCase(
    'totp.enabled-kept',
    'a pending save never replaces an enabled enrollment',
    async ({ store }, check) => {
      const accountId = account()
      const secret = await enable(store, accountId)
      const answer = await store.savePendingTotp({ accountId, sealedSecret: sealed(), now: later(9) })
      check(answer === 'already-enabled', `savePendingTotp answered ${answer}`)
      const stored = await store.getTotpEnrollment(accountId)
      check(stored?.status === 'enabled' && stored.sealedSecret === secret, 'the enabled enrollment changed')
    },
  ),
  conformanceCase(
    'totp.step-once',
    'a time step is accepted once and only above the last used one, only for an enabled enrollment',
    async ({ store }, check) => {
      const accountId = account()
      await enable(store, accountId, { step: 100 })
      check(!(await store.useTotpStep({ accountId, step: 100 })), 'the confirming step was accepted again')
      check(!(await store.useTotpStep({ accountId, step: 99 })), 'an older step was accepted')
      check(await store.useTotpStep({ accountId, step: 101 }), 'the next step was refused')
      check(!(await store.useTotpStep({ accountId, step: 101 })), 'a used step was accepted again')
      check((await store.getTotpEnrollment(accountId))?.lastUsedStep === 101, 'lastUsedStep did not move')
      const pending = account()
      await store.savePendingTotp({ accountId: pending, sealedSecret: sealed(), now: T0 })
      check(
        !(await store.useTotpStep({ accountId: pending, step: 5 })),
        'a pending enrollment accepted a step',
      )
      check(
        !(await store.useTotpStep({ accountId: account(), step: 5 })),
        'an unknown account accepted a step',
      )
    },
  ),
  conformanceCase(
    'totp.concurrent-step',
    'of 20 concurrent uses of one step (two instances when the fixture has a sibling) exactly one wins',
    async ({ store, sibling }, check) => {
      const accountId = account()
      await enable(store, accountId, { step: 10 })
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          (index % 2 === 1 && sibling !== undefined ? sibling : store).useTotpStep({ accountId, step: 11 }),
        ),
      )
      check(results.filter(Boolean).length === 1, `${results.filter(Boolean).length} uses won`)
    },
  ),
  conformanceCase(
    'totp.remove',
    'removing ends the enrollment and its recovery codes, and answers false when there was none',
    async ({ store }, check) => {
      const accountId = account()
      await enable(store, accountId, { codes: ['v1:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'] })
      check(await store.removeTotp(accountId), 'removeTotp answered false')
      check((await store.getTotpEnrollment(accountId)) === null, 'the enrollment survived')
      check((await store.countRecoveryCodes(accountId)) === 0, 'recovery codes survived')
      check(!(await store.removeTotp(accountId)), 'a second removal answered true')
      check(!(await store.useTotpStep({ accountId, step: 5000 })), 'a removed enrollment accepted a step')
    },
  ),
]
