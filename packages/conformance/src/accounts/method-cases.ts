import { concurrently, expectCode, passwordHash, T0, unique, username } from '../local-accounts/fixture.js'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  type AccountStoreFixture,
  GRANT,
  identityOf,
  methodNames,
  passwordAccount,
  providerView,
} from './fixture.js'

type Case = ConformanceCase<AccountStoreFixture>

export const methodCases: readonly Case[] = [
  conformanceCase(
    'accounts.methods.count',
    'an account has its password and one identity per linked provider as sign-in methods, counted alike by every view',
    async (fixture, check) => {
      const { store } = fixture
      const { accountId } = await passwordAccount(store)
      const [first, second] = [providerView(fixture), providerView(fixture)]
      check((await methodNames(store, accountId)).join() === 'password', 'a new account is not one password')
      check(
        (await first.getAccount(accountId))?.loginMethods === 1,
        'a provider view did not count the password',
      )
      await first.link({ accountId, identity: identityOf(first), grant: GRANT, now: T0 })
      await second.link({ accountId, identity: identityOf(second), grant: GRANT, now: T0 })
      const names = await methodNames(store, accountId)
      check(
        names.length === 3 &&
          names[0] === 'password' &&
          names.includes(first.provider) &&
          names.includes(second.provider),
        `the methods after two links are ${names.join()}`,
      )
      check(
        (await second.getAccount(accountId))?.loginMethods === 3,
        'a provider view miscounted the methods',
      )
      const methods = await store.listSignInMethods(accountId)
      check(!JSON.stringify(methods).includes('$argon2id$'), 'a method listing shows the password hash')
      check((await store.listSignInMethods(unique('account'))).length === 0, 'an unknown account has methods')
      check((await store.getAccount(unique('account'))) === null, 'an unknown account was found')
    },
  ),
  conformanceCase(
    'accounts.methods.provider-first',
    'a provider first sign-in makes an account with that identity as its one method; a password can be added once',
    async (fixture, check) => {
      const { store } = fixture
      const view = providerView(fixture)
      const login = await view.login({
        identity: identityOf(view),
        grant: GRANT,
        provisionUnknown: true,
        now: T0,
      })
      const { accountId } = login.link
      check(login.provisioned, 'the first sign-in did not provision')
      const account = await store.getAccount(accountId)
      check(
        account?.securityEpoch === 1 && account.status === 'active',
        'the provisioned account is not epoch 1, active',
      )
      check(
        (await methodNames(store, accountId)).join() === view.provider,
        'the provisioned account has other methods',
      )
      check((await store.findPassword({ accountId })) === null, 'a provider-only account has a password')
      const taken = await passwordAccount(store)
      const clash = await store.addPassword({
        accountId,
        username: taken.username,
        passwordHash: passwordHash(),
        now: T0,
      })
      check(clash.outcome === 'username-taken', `adding a taken username answered ${clash.outcome}`)
      const name = username()
      const added = await store.addPassword({
        accountId,
        username: name,
        passwordHash: passwordHash(),
        now: T0,
      })
      check(
        added.outcome === 'added' && added.account.username === name,
        `adding a password answered ${added.outcome}`,
      )
      check(
        (await store.findPassword({ username: name }))?.accountId === accountId,
        'the added password is not found',
      )
      check((await store.getAccount(accountId))?.securityEpoch === 1, 'adding a password moved the epoch')
      const again = await store.addPassword({
        accountId,
        username: username(),
        passwordHash: passwordHash(),
        now: T0,
      })
      check(again.outcome === 'password-exists', `a second password answered ${again.outcome}`)
      const unknown = await store.addPassword({
        accountId: unique('account'),
        username: username(),
        passwordHash: passwordHash(),
        now: T0,
      })
      check(unknown.outcome === 'not-found', `a password for an unknown account answered ${unknown.outcome}`)
    },
  ),
  conformanceCase(
    'accounts.methods.last-method',
    'the last sign-in method is never removed: neither the password nor the last identity',
    async (fixture, check) => {
      const { store } = fixture
      const view = providerView(fixture)
      const { accountId, username: name } = await passwordAccount(store)
      const lone = await store.removePassword({ accountId, now: T0 })
      check(lone.outcome === 'final-method', `removing the only password answered ${lone.outcome}`)
      check((await store.findPassword({ username: name }))?.accountId === accountId, 'the only password went')
      const link = await view.link({ accountId, identity: identityOf(view), grant: GRANT, now: T0 })
      const removed = await store.removePassword({ accountId, now: T0 })
      check(
        removed.outcome === 'removed',
        `removing a password beside an identity answered ${removed.outcome}`,
      )
      check((await store.findPassword({ username: name })) === null, 'the removed password still signs in')
      const last = await view.unlink({
        accountId,
        provider: view.provider,
        providerAccountId: link.link.providerAccountId,
      })
      check(last.status === 'final-method', `unlinking the last identity answered ${last.status}`)
      check((await methodNames(store, accountId)).join() === view.provider, 'the last identity went')
      const none = await store.removePassword({ accountId, now: T0 })
      check(none.outcome === 'not-found', `removing a missing password answered ${none.outcome}`)
      const stranger = await store.removePassword({ accountId: unique('account'), now: T0 })
      check(
        stranger.outcome === 'not-found',
        `removing the password of an unknown account answered ${stranger.outcome}`,
      )
    },
  ),
  conformanceCase(
    'accounts.methods.last-method-race',
    'removing the password and unlinking the identity at once (on two instances) always leaves one method',
    async (fixture, check) => {
      const { store } = fixture
      const peer = fixture.peer ?? store
      const provider = providerView(fixture).provider
      for (let round = 0; round < 8; round += 1) {
        const { accountId } = await passwordAccount(store)
        const view = providerView(fixture, store, provider)
        const link = await view.link({ accountId, identity: identityOf(view), grant: GRANT, now: T0 })
        const peerView = providerView(fixture, peer, provider)
        const [removed, unlinked] = await Promise.all([
          store.removePassword({ accountId, now: T0 }),
          peerView.unlink({ accountId, provider, providerAccountId: link.link.providerAccountId }),
        ])
        const gone = (removed.outcome === 'removed' ? 1 : 0) + (unlinked.status === 'unlinked' ? 1 : 0)
        check(gone === 1, `round ${round}: ${gone} of the two last methods were removed`)
        check(
          (await store.listSignInMethods(accountId)).length === 1,
          `round ${round}: the account kept no method`,
        )
      }
    },
  ),
  conformanceCase(
    'accounts.provisioning.concurrent',
    '16 concurrent first sign-ins of one identity (on two instances) provision exactly one account',
    async (fixture, check) => {
      const provider = providerView(fixture).provider
      const person = identityOf(providerView(fixture, fixture.store, provider))
      const logins = await concurrently(fixture, 16, (store) =>
        providerView(fixture, store, provider).login({
          identity: person,
          grant: GRANT,
          provisionUnknown: true,
          now: T0,
        }),
      )
      const accounts = new Set(logins.map((login) => login.link.accountId))
      check(accounts.size === 1, `${accounts.size} accounts were provisioned for one identity`)
      check(
        logins.filter((login) => login.provisioned).length === 1,
        'not exactly one login reported provisioned',
      )
      const [accountId] = [...accounts]
      const methods = await fixture.store.listSignInMethods(accountId ?? '')
      check(methods.length === 1, `the provisioned account has ${methods.length} methods`)
    },
  ),
  conformanceCase(
    'accounts.provisioning.unknown-refused',
    'without provisioning an unknown identity is refused and creates nothing',
    async (fixture, check) => {
      const view = providerView(fixture)
      const person = identityOf(view)
      await expectCode(
        check,
        view.login({ identity: person, grant: GRANT, provisionUnknown: false, now: T0 }),
        'oauth.account.unknown_identity',
        'a login of an unknown identity without provisioning',
      )
      const later = await view.login({ identity: person, grant: GRANT, provisionUnknown: true, now: T0 })
      check(later.provisioned, 'the refused login left an account behind')
    },
  ),
]
