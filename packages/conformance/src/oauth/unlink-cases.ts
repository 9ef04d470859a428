import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  account,
  Codes,
  count,
  expectCode,
  grant,
  identity,
  linkedAccount,
  NOW,
  type OAuthAccountStoreFixture,
} from './fixture.js'

type Case = ConformanceCase<OAuthAccountStoreFixture>

export const unlinkCases: readonly Case[] = [
  conformanceCase(
    'oauth-accounts.unlink.not-found',
    'unlink is bound to owner, provider and link id: any mismatch is not-found and changes nothing',
    async ({ store }, check) => {
      const { accountId, link } = await linkedAccount(store)
      const stranger = await account(store, 2)
      const attempts = [
        { accountId: stranger, provider: store.provider, providerAccountId: link.providerAccountId },
        { accountId, provider: `${store.provider}-other`, providerAccountId: link.providerAccountId },
        { accountId, provider: store.provider, providerAccountId: `${link.providerAccountId}-other` },
      ]
      for (const attempt of attempts) {
        const outcome = await store.unlink(attempt)
        check(outcome.status === 'not-found', `mismatched unlink answered ${outcome.status}`)
      }
      const kept = await store.resolveLink({ accountId, provider: store.provider })
      check(kept?.providerAccountId === link.providerAccountId, 'a mismatched unlink removed the link')
      check(
        (await store.getAccount(accountId))?.loginMethods === 2,
        'a mismatched unlink changed the method count',
      )
    },
  ),
  conformanceCase(
    'oauth-accounts.unlink.final-method',
    'unlinking the last login method answers final-method and keeps the link and its tokens',
    async ({ store }, check) => {
      const { accountId, link } = await linkedAccount(store, { loginMethods: 0 })
      const outcome = await store.unlink({
        accountId,
        provider: store.provider,
        providerAccountId: link.providerAccountId,
      })
      check(outcome.status === 'final-method', `answered ${outcome.status}`)
      const kept = await store.resolveLink({ accountId, provider: store.provider })
      check(kept?.providerAccountId === link.providerAccountId, 'the final method was removed')
      check((await store.getTokens(link.providerAccountId)) !== null, 'the final method lost its tokens')
      check((await store.getAccount(accountId))?.loginMethods === 1, 'method count changed')
    },
  ),
  conformanceCase(
    'oauth-accounts.unlink.unlinked',
    'unlink removes the link, its tokens and one login method, and frees the identity',
    async ({ store }, check) => {
      const { accountId, link } = await linkedAccount(store)
      const outcome = await store.unlink({
        accountId,
        provider: store.provider,
        providerAccountId: link.providerAccountId,
      })
      check(
        outcome.status === 'unlinked' && outcome.providerAccountId === link.providerAccountId,
        `answered ${outcome.status}`,
      )
      check(
        (await store.resolveLink({ accountId, provider: store.provider })) === null,
        'link still resolves',
      )
      check((await store.getTokens(link.providerAccountId)) === null, 'tokens survived the unlink')
      check((await store.getAccount(accountId))?.loginMethods === 1, 'method count not decremented')
      const person = { provider: link.provider, issuer: link.issuer, subject: link.subject }
      const login = store.login({ identity: person, grant: grant(), provisionUnknown: false, now: NOW })
      await expectCode(check, login, Codes.unknownIdentity, 'login of the unlinked identity')
      const newOwner = await account(store)
      const relinked = await store.link({ accountId: newOwner, identity: person, grant: grant(), now: NOW })
      check(relinked.status === 'linked', 'the freed identity could not be linked again')
    },
  ),
  conformanceCase(
    'oauth-accounts.unlink.concurrent-race',
    'two concurrent unlinks of one link: exactly one unlinked, one not-found',
    async ({ store }, check) => {
      const { accountId, link } = await linkedAccount(store, { loginMethods: 2 })
      const request = { accountId, provider: store.provider, providerAccountId: link.providerAccountId }
      const outcomes = await Promise.all([store.unlink(request), store.unlink(request)])
      check(count(outcomes, (outcome) => outcome.status === 'unlinked') === 1, 'not exactly one unlinked')
      check(count(outcomes, (outcome) => outcome.status === 'not-found') === 1, 'not exactly one not-found')
      check((await store.getAccount(accountId))?.loginMethods === 2, 'method count decremented twice')
    },
  ),
  conformanceCase(
    'oauth-accounts.unlink.final-method-race',
    'removing the password and unlinking the provider at once never leaves an account without a method',
    async ({ store }, check) => {
      for (let round = 0; round < 8; round += 1) {
        const { accountId, link } = await linkedAccount(store, { loginMethods: 1 })
        const [unlinked, adjusted] = await Promise.all([
          store.unlink({ accountId, provider: store.provider, providerAccountId: link.providerAccountId }),
          store.adjustLoginMethods({ accountId, delta: -1 }),
        ])
        const removed = (unlinked.status === 'unlinked' ? 1 : 0) + (adjusted.status === 'adjusted' ? 1 : 0)
        check(removed === 1, `round ${round}: ${removed} of the two last methods were removed`)
        check(
          (await store.getAccount(accountId))?.loginMethods === 1,
          `round ${round}: account left with no method`,
        )
      }
    },
  ),
  conformanceCase(
    'oauth-accounts.directory.login-methods',
    'registering is idempotent; adding and removing methods keep the count and never remove the last one',
    async ({ store }, check) => {
      const accountId = await account(store, 1)
      check(!(await store.registerAccount({ accountId, loginMethods: 5 })), 'registering twice answered true')
      check((await store.getAccount(accountId))?.loginMethods === 1, 'registering twice changed the count')
      const added = await store.adjustLoginMethods({ accountId, delta: 1 })
      check(added.status === 'adjusted' && added.loginMethods === 2, 'adding a method did not count')
      const removed = await store.adjustLoginMethods({ accountId, delta: -1 })
      check(removed.status === 'adjusted' && removed.loginMethods === 1, 'removing a method did not count')
      const last = await store.adjustLoginMethods({ accountId, delta: -1 })
      check(last.status === 'final-method', `removing the last method answered ${last.status}`)
      const unknown = await store.adjustLoginMethods({ accountId: 'account-that-does-not-exist', delta: 1 })
      check(unknown.status === 'not-found', 'adjusting an unknown account did not answer not-found')
      check((await store.getAccount('account-that-does-not-exist')) === null, 'unknown account appeared')
      const linkedOnly = await linkedAccount(store, { loginMethods: 0 })
      const noPassword = await store.adjustLoginMethods({ accountId: linkedOnly.accountId, delta: -1 })
      check(noPassword.status !== 'adjusted', 'removed a non-provider method the account never had')
      check(
        (await store.getAccount(linkedOnly.accountId))?.loginMethods === 1,
        'provider-only account lost a method',
      )
      const person = identity(store)
      const provisioned = await store.login({
        identity: person,
        grant: grant(),
        provisionUnknown: true,
        now: NOW,
      })
      check(
        (await store.getAccount(provisioned.link.accountId))?.loginMethods === 1,
        'provisioned count is not 1',
      )
    },
  ),
]
