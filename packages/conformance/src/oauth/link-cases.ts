import { accounts } from '@portcullis/core/oauth'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  account,
  Codes,
  count,
  expectCode,
  grant,
  identity,
  NOW,
  type OAuthAccountStoreFixture,
  tokens,
} from './fixture.js'

type Case = ConformanceCase<OAuthAccountStoreFixture>

export const linkCases: readonly Case[] = [
  conformanceCase(
    'oauth-accounts.login.unknown-refused',
    'login of an unknown identity without provisioning is refused and creates nothing',
    async ({ store, accountStore }, check) => {
      const person = identity(store)
      const refused = store.login({ identity: person, grant: grant(), provisionUnknown: false, now: NOW })
      await expectCode(check, refused, Codes.unknownIdentity, 'login without provisioning')
      const later = await store.login({ identity: person, grant: grant(), provisionUnknown: true, now: NOW })
      check(later.provisioned, 'the refused login left a link behind')
    },
  ),
  conformanceCase(
    'oauth-accounts.login.provisions',
    'provisioning creates the account (one login method) and its link together; the next login finds them',
    async ({ store, accountStore }, check) => {
      const person = identity(store)
      const first = await store.login({
        identity: person,
        grant: grant('openid'),
        provisionUnknown: true,
        now: NOW,
      })
      check(first.provisioned, 'first login did not provision')
      check(
        (await store.getAccount(first.link.accountId))?.loginMethods === 1,
        'provisioned account has not 1 method',
      )
      const resolved = await store.resolveLink({ accountId: first.link.accountId, provider: store.provider })
      check(
        resolved?.providerAccountId === first.link.providerAccountId,
        'the provisioned link does not resolve',
      )
      const second = await store.login({
        identity: person,
        grant: grant('openid', 'email'),
        provisionUnknown: true,
        now: NOW,
      })
      check(!second.provisioned, 'second login provisioned again')
      check(second.link.accountId === first.link.accountId, 'second login resolved another account')
      check(second.link.grant.scopes.join(' ') === 'email openid', 'login did not refresh the grant')
    },
  ),
  conformanceCase(
    'oauth-accounts.login.provisioning-race',
    'concurrent first logins of one identity provision exactly one account',
    async ({ store, accountStore }, check) => {
      const person = identity(store)
      const results = await Promise.allSettled(
        Array.from({ length: 16 }, () =>
          store.login({ identity: person, grant: grant(), provisionUnknown: true, now: NOW }),
        ),
      )
      const outcomes = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []))
      check(outcomes.length === 16, `${16 - outcomes.length} of 16 concurrent logins failed`)
      check(count(outcomes, (outcome) => outcome.provisioned) === 1, 'not exactly one login provisioned')
      check(
        new Set(outcomes.map((outcome) => outcome.link.accountId)).size === 1,
        'logins resolved different accounts',
      )
      const accountId = outcomes[0]?.link.accountId ?? ''
      check((await store.getAccount(accountId))?.loginMethods === 1, 'the account holds more than one method')
    },
  ),
  conformanceCase(
    'oauth-accounts.link.exact-identity',
    'only the exact (provider, issuer, subject) matches: another issuer or a shared verified email never links',
    async ({ store, accountStore }, check) => {
      const owner = await account(accountStore)
      const email = 'same.person@example.com'
      const linked = identity(store, { email, emailVerified: true })
      await store.link({ accountId: owner, identity: linked, grant: grant(), now: NOW })
      const otherIssuer = { ...linked, issuer: 'https://other-issuer.conformance.example/' }
      const sameEmail = identity(store, { email, emailVerified: true })
      for (const [label, candidate] of [
        ['other issuer', otherIssuer],
        ['same email', sameEmail],
      ] as const) {
        const login = store.login({ identity: candidate, grant: grant(), provisionUnknown: false, now: NOW })
        await expectCode(check, login, Codes.unknownIdentity, `login with ${label}`)
      }
    },
  ),
  conformanceCase(
    'oauth-accounts.link.identity-linked-elsewhere',
    'linking an identity owned by another account is a link conflict and changes nothing',
    async ({ store, accountStore }, check) => {
      const [owner, intruder] = [await account(accountStore), await account(accountStore)]
      const person = identity(store)
      await store.link({ accountId: owner, identity: person, grant: grant(), now: NOW })
      const attempt = store.link({
        accountId: intruder,
        identity: person,
        grant: grant('openid', 'admin'),
        now: NOW,
      })
      const error = await attempt.then(
        () => undefined,
        (caught: unknown) => caught,
      )
      check(error instanceof accounts.AccountLinkError, 'no AccountLinkError')
      check(
        (error as accounts.AccountLinkError).conflict === 'identity-linked-elsewhere',
        'wrong conflict kind',
      )
      check(
        (await store.resolveLink({ accountId: intruder, provider: store.provider })) === null,
        'intruder got a link',
      )
      check((await store.getAccount(intruder))?.loginMethods === 1, 'intruder method count changed')
      const kept = await store.resolveLink({ accountId: owner, provider: store.provider })
      check(kept?.grant.scopes.join(' ') === 'openid', 'owner link was altered')
    },
  ),
  conformanceCase(
    'oauth-accounts.link.provider-already-linked',
    'a second identity of the same provider on one account is a link conflict and changes nothing',
    async ({ store, accountStore }, check) => {
      const owner = await account(accountStore)
      const first = identity(store)
      await store.link({ accountId: owner, identity: first, grant: grant(), now: NOW })
      const error = await store
        .link({ accountId: owner, identity: identity(store), grant: grant(), now: NOW })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        )
      check(error instanceof accounts.AccountLinkError, 'no AccountLinkError')
      check(
        (error as accounts.AccountLinkError).conflict === 'provider-already-linked',
        'wrong conflict kind',
      )
      const kept = await store.resolveLink({ accountId: owner, provider: store.provider })
      check(kept?.subject === first.subject, 'the first identity is no longer linked')
      check((await store.getAccount(owner))?.loginMethods === 2, 'method count changed')
    },
  ),
  conformanceCase(
    'oauth-accounts.link.relink-refreshes-grant',
    'the owner linking the same identity again refreshes the grant without adding a login method',
    async ({ store, accountStore }, check) => {
      const owner = await account(accountStore)
      const person = identity(store)
      const first = await store.link({ accountId: owner, identity: person, grant: grant('openid'), now: NOW })
      const again = await store.link({
        accountId: owner,
        identity: person,
        grant: grant('openid', 'email'),
        now: NOW,
      })
      check(first.status === 'linked' && again.status === 'relinked', 'statuses are not linked then relinked')
      check(again.link.providerAccountId === first.link.providerAccountId, 'relink created another link')
      check(again.link.grant.scopes.join(' ') === 'email openid', 'relink did not refresh the grant')
      check((await store.getAccount(owner))?.loginMethods === 2, 'relink counted another login method')
    },
  ),
  conformanceCase(
    'oauth-accounts.link.concurrent-claims',
    'two accounts linking one identity at once: one wins, the other gets a link conflict',
    async ({ store, accountStore }, check) => {
      const owners = [await account(accountStore), await account(accountStore)]
      const person = identity(store)
      const results = await Promise.allSettled(
        owners.map((accountId) => store.link({ accountId, identity: person, grant: grant(), now: NOW })),
      )
      check(count(results, (result) => result.status === 'fulfilled') === 1, 'not exactly one link succeeded')
      const rejected = results.find((result) => result.status === 'rejected')
      check(
        rejected?.status === 'rejected' && rejected.reason instanceof accounts.AccountLinkError,
        'loser was no conflict',
      )
      const links = await Promise.all(
        owners.map((accountId) => store.resolveLink({ accountId, provider: store.provider })),
      )
      check(
        count(links, (link) => link !== null) === 1,
        'the identity ended up linked to both or neither account',
      )
    },
  ),
  conformanceCase(
    'oauth-accounts.link.unknown-account',
    'linking to an account that does not exist is refused and creates nothing',
    async ({ store, accountStore }, check) => {
      const person = identity(store)
      const attempt = store.link({
        accountId: 'account-that-does-not-exist',
        identity: person,
        grant: grant(),
        now: NOW,
      })
      await expectCode(check, attempt, Codes.unknownAccount, 'link to unknown account')
      const login = store.login({ identity: person, grant: grant(), provisionUnknown: false, now: NOW })
      await expectCode(check, login, Codes.unknownIdentity, 'login after refused link')
      check(
        (await store.getAccount('account-that-does-not-exist')) === null,
        'the unknown account was created',
      )
    },
  ),
  conformanceCase(
    'oauth-accounts.upgrade.replaces-grant',
    'a scope upgrade replaces the grant and retains the new tokens for an owned link',
    async ({ store, accountStore }, check) => {
      const owner = await account(accountStore)
      const person = identity(store)
      const linked = await store.link({
        accountId: owner,
        identity: person,
        grant: grant('openid'),
        now: NOW,
      })
      const upgraded = await store.upgradeScopes({
        accountId: owner,
        providerAccountId: linked.link.providerAccountId,
        identity: person,
        grant: grant('openid', 'calendar.read'),
        tokens: tokens('upgrade', ['calendar.read', 'openid']),
        now: NOW,
      })
      check(upgraded.link.grant.scopes.join(' ') === 'calendar.read openid', 'grant not replaced')
      const stored = await store.getTokens(linked.link.providerAccountId)
      check(stored?.reference.scopes.join(' ') === 'calendar.read openid', 'upgraded tokens not retained')
    },
  ),
  conformanceCase(
    'oauth-accounts.upgrade.refused',
    'a scope upgrade by another account or for another identity is refused and changes nothing',
    async ({ store, accountStore }, check) => {
      const [owner, other] = [await account(accountStore), await account(accountStore)]
      const person = identity(store)
      const linked = await store.link({
        accountId: owner,
        identity: person,
        grant: grant('openid'),
        now: NOW,
      })
      const base = {
        providerAccountId: linked.link.providerAccountId,
        grant: grant('openid', 'admin'),
        now: NOW,
      }
      const foreign = store.upgradeScopes({ ...base, accountId: other, identity: person })
      await expectCode(check, foreign, Codes.linkNotFound, 'upgrade by another account')
      const swapped = store.upgradeScopes({ ...base, accountId: owner, identity: identity(store) })
      await expectCode(check, swapped, Codes.identityMismatch, 'upgrade with another identity')
      const kept = await store.resolveLink({ accountId: owner, provider: store.provider })
      check(kept?.grant.scopes.join(' ') === 'openid', 'a refused upgrade changed the grant')
      check(
        (await store.resolveLink({ accountId: other, provider: store.provider })) === null,
        'other account got a link',
      )
    },
  ),
]
