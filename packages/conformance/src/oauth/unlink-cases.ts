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
    async ({ store, accountStore }, check) => {
      const { accountId, link } = await linkedAccount(store, accountStore)
      const stranger = await account(accountStore)
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
    async ({ store, accountStore }, check) => {
      const { accountId, link } = await linkedAccount(store, accountStore, { password: false })
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
    async ({ store, accountStore }, check) => {
      const { accountId, link } = await linkedAccount(store, accountStore)
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
      const newOwner = await account(accountStore)
      const relinked = await store.link({ accountId: newOwner, identity: person, grant: grant(), now: NOW })
      check(relinked.status === 'linked', 'the freed identity could not be linked again')
    },
  ),
  conformanceCase(
    'oauth-accounts.unlink.concurrent-race',
    'two concurrent unlinks of one link: exactly one unlinked, one not-found',
    async ({ store, accountStore }, check) => {
      const { accountId, link } = await linkedAccount(store, accountStore)
      const request = { accountId, provider: store.provider, providerAccountId: link.providerAccountId }
      const outcomes = await Promise.all([store.unlink(request), store.unlink(request)])
      check(count(outcomes, (outcome) => outcome.status === 'unlinked') === 1, 'not exactly one unlinked')
      check(count(outcomes, (outcome) => outcome.status === 'not-found') === 1, 'not exactly one not-found')
      check(
        (await store.getAccount(accountId))?.loginMethods === 1,
        'the unlink was counted twice or not at all',
      )
    },
  ),
  conformanceCase(
    'oauth-accounts.unlink.final-method-race',
    'removing the password and unlinking the provider at once never leaves an account without a method',
    async ({ store, accountStore }, check) => {
      for (let round = 0; round < 8; round += 1) {
        const { accountId, link } = await linkedAccount(store, accountStore)
        const [unlinked, passwordGone] = await Promise.all([
          store.unlink({ accountId, provider: store.provider, providerAccountId: link.providerAccountId }),
          accountStore.removePassword({ accountId, now: NOW }),
        ])
        const removed =
          (unlinked.status === 'unlinked' ? 1 : 0) + (passwordGone.outcome === 'removed' ? 1 : 0)
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
    'the count spans the password and the links; a provisioned account and an unknown one count right',
    async ({ store, accountStore }, check) => {
      const accountId = await account(accountStore)
      check((await store.getAccount(accountId))?.loginMethods === 1, 'a password account does not count 1')
      check((await store.getAccount('account-that-does-not-exist')) === null, 'unknown account appeared')
      const linkedOnly = await linkedAccount(store, accountStore, { password: false })
      const noPassword = await accountStore.removePassword({ accountId: linkedOnly.accountId, now: NOW })
      check(noPassword.outcome === 'not-found', 'removed a password the account never had')
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
