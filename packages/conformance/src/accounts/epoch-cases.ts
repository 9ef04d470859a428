import { at, passwordHash, T0, unique } from '../local-accounts/fixture.js'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { type AccountStoreFixture, GRANT, identityOf, passwordAccount, providerView } from './fixture.js'

type Case = ConformanceCase<AccountStoreFixture>

export const epochCases: readonly Case[] = [
  conformanceCase(
    'accounts.epoch.bumps',
    'the security epoch moves with a password change, a bump, an unlink, a password removal and disabling; never with a link, a rehash or adding a password',
    async (fixture, check) => {
      const { store } = fixture
      const view = providerView(fixture)
      const { accountId } = await passwordAccount(store)
      const epoch = async () => (await store.getAccount(accountId))?.securityEpoch
      const expect = async (value: number, what: string) => {
        const actual = await epoch()
        check(actual === value, `${what}: epoch ${actual}, expected ${value}`)
      }
      await expect(1, 'a new account')
      const link = await view.link({ accountId, identity: identityOf(view), grant: GRANT, now: T0 })
      await expect(1, 'after a link')
      const current = await store.findPassword({ accountId })
      await store.setPassword({
        accountId,
        passwordHash: passwordHash('rehash'),
        now: at(1),
        expectedPasswordHash: current?.passwordHash,
        bumpEpoch: false,
        rehash: true,
      })
      await expect(1, 'after a rehash')
      await store.setPassword({
        accountId,
        passwordHash: passwordHash('changed'),
        now: at(2),
        bumpEpoch: true,
      })
      await expect(2, 'after a password change')
      check(
        (await store.bumpSecurityEpoch({ accountId, now: at(3) })) === 3,
        'a bump did not answer the new epoch',
      )
      const second = providerView(fixture)
      await second.link({ accountId, identity: identityOf(second), grant: GRANT, now: T0 })
      const unlinked = await view.unlink({
        accountId,
        provider: view.provider,
        providerAccountId: link.link.providerAccountId,
      })
      check(
        unlinked.status === 'unlinked' && unlinked.securityEpoch === 4,
        `an unlink answered ${unlinked.status} with epoch ${unlinked.status === 'unlinked' ? unlinked.securityEpoch : '-'}`,
      )
      await expect(4, 'after an unlink')
      const removed = await store.removePassword({ accountId, now: at(4) })
      check(
        removed.outcome === 'removed' && removed.securityEpoch === 5,
        'a password removal did not answer epoch 5',
      )
      await expect(5, 'after a password removal')
      const added = await store.addPassword({
        accountId,
        username: unique('name'),
        passwordHash: passwordHash(),
        now: at(5),
      })
      check(added.outcome === 'added', `adding a password back answered ${added.outcome}`)
      await expect(5, 'after adding a password')
      const disabled = await store.setAccountStatus({ accountId, status: 'disabled', now: at(6) })
      check(
        disabled?.status === 'disabled' && disabled.securityEpoch === 6,
        'disabling did not move the epoch',
      )
      const twice = await store.setAccountStatus({ accountId, status: 'disabled', now: at(7) })
      check(twice?.securityEpoch === 6, 'disabling a disabled account moved the epoch again')
      const enabled = await store.setAccountStatus({ accountId, status: 'active', now: at(8) })
      check(enabled?.status === 'active' && enabled.securityEpoch === 6, 'enabling moved the epoch')
      check(
        (await store.findPassword({ accountId }))?.status === 'active',
        'the password record shows another status',
      )
      check(
        (await store.setAccountStatus({ accountId: unique('account'), status: 'disabled', now: T0 })) ===
          null,
        'an unknown account got a status',
      )
    },
  ),
  conformanceCase(
    'accounts.epoch.concurrent-unlinks-and-bumps',
    'concurrent bumps and an unlink (on two instances) lose no increment',
    async (fixture, check) => {
      const { store } = fixture
      const peer = fixture.peer ?? store
      const provider = providerView(fixture).provider
      const view = providerView(fixture, store, provider)
      const { accountId } = await passwordAccount(store)
      const link = await view.link({ accountId, identity: identityOf(view), grant: GRANT, now: T0 })
      const peerView = providerView(fixture, peer, provider)
      await Promise.all([
        ...Array.from({ length: 8 }, (_, index) =>
          (index % 2 === 0 ? store : peer).bumpSecurityEpoch({ accountId, now: at(index) }),
        ),
        peerView.unlink({ accountId, provider, providerAccountId: link.link.providerAccountId }),
      ])
      const epoch = (await store.getAccount(accountId))?.securityEpoch
      check(epoch === 10, `8 bumps and an unlink from epoch 1 ended at ${epoch}`)
    },
  ),
]
