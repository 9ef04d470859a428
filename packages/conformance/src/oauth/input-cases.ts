import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  account,
  Codes,
  expectCode,
  grant,
  identity,
  LATER,
  linkedAccount,
  NOW,
  type OAuthAccountStoreFixture,
  tokens,
} from './fixture.js'

type Case = ConformanceCase<OAuthAccountStoreFixture>
type Store = OAuthAccountStoreFixture['store']

/** Bad values reach the store from untyped callers (JSON, JavaScript); the casts model exactly that. */
const loose = <T>(value: unknown): T => value as T

/** After a refused request the account must look exactly as before: no link, one method. */
async function untouched(store: Store, accountId: string): Promise<boolean> {
  const [link, record] = await Promise.all([
    store.resolveLink({ accountId, provider: store.provider }),
    store.getAccount(accountId),
  ])
  return link === null && record?.loginMethods === 1
}

export const inputCases: readonly Case[] = [
  conformanceCase(
    'oauth-accounts.input.blank-ids',
    'blank, padded or control-character ids are typed invalid-input errors and change nothing',
    async ({ store, accountStore }, check) => {
      const accountId = await account(accountStore)
      for (const bad of ['', '   ', ' padded', 'line\nbreak', loose<string>(undefined), loose<string>(42)]) {
        const label = JSON.stringify(bad) ?? String(bad)
        await expectCode(
          check,
          store.link({ accountId: bad, identity: identity(store), grant: grant(), now: NOW }),
          Codes.invalidInput,
          `link with accountId ${label}`,
        )
        await expectCode(
          check,
          store.link({ accountId, identity: identity(store, { subject: bad }), grant: grant(), now: NOW }),
          Codes.invalidInput,
          `link with subject ${label}`,
        )
        await expectCode(check, store.getTokens(bad), Codes.invalidInput, `getTokens(${label})`)
        await expectCode(
          check,
          store.unlink({ accountId, provider: store.provider, providerAccountId: bad }),
          Codes.invalidInput,
          `unlink of ${label}`,
        )
        await expectCode(check, store.getAccount(bad), Codes.invalidInput, `getAccount(${label})`)
      }
      check(await untouched(store, accountId), 'a refused request changed the account')
    },
  ),
  conformanceCase(
    'oauth-accounts.input.scopes',
    'malformed scope tokens are typed invalid-input errors and link nothing',
    async ({ store, accountStore }, check) => {
      const accountId = await account(accountStore)
      const person = identity(store)
      for (const scopes of [
        [''],
        ['two words'],
        ['"quoted"'],
        ['back\\slash'],
        ['caf\u00e9'],
        'openid',
        [7],
      ]) {
        const request = {
          accountId,
          identity: person,
          grant: loose<{ scopes: string[] }>({ scopes }),
          now: NOW,
        }
        await expectCode(check, store.link(request), Codes.invalidInput, `scopes ${JSON.stringify(scopes)}`)
      }
      check(await untouched(store, accountId), 'a refused link changed the account')
    },
  ),
  conformanceCase(
    'oauth-accounts.input.dates',
    'timezone-less, impossible or invalid dates are typed invalid-input errors and link nothing',
    async ({ store, accountStore }, check) => {
      const accountId = await account(accountStore)
      const person = identity(store)
      const badExpiries = [
        '2031-03-04T05:06:07',
        '2031-03-04 05:06:07Z',
        '2031-02-30T00:00:00Z',
        'tomorrow',
        '',
      ]
      for (const expiresAt of badExpiries) {
        const request = { accountId, identity: person, grant: { scopes: ['openid'], expiresAt }, now: NOW }
        await expectCode(
          check,
          store.link(request),
          Codes.invalidInput,
          `grant expiry ${JSON.stringify(expiresAt)}`,
        )
      }
      const invalidNow = { accountId, identity: person, grant: grant(), now: new Date(Number.NaN) }
      await expectCode(check, store.link(invalidNow), Codes.invalidInput, 'invalid now')
      const stringNow = { accountId, identity: person, grant: grant(), now: loose<Date>(LATER.toISOString()) }
      await expectCode(check, store.link(stringNow), Codes.invalidInput, 'now given as a string')
      const accepted = await store.link({
        accountId,
        identity: person,
        grant: { scopes: ['openid'], expiresAt: '2031-03-04T06:06:07+01:00' },
        now: NOW,
      })
      check(
        accepted.link.grant.expiresAt?.getTime() === Date.parse('2031-03-04T05:06:07Z'),
        'offset date misread',
      )
    },
  ),
  conformanceCase(
    'oauth-accounts.input.foreign-provider',
    "an identity of another provider is refused by this provider's store",
    async ({ store, accountStore }, check) => {
      const accountId = await account(accountStore)
      const foreign = identity(store, { provider: `${store.provider}-other` })
      await expectCode(
        check,
        store.link({ accountId, identity: foreign, grant: grant(), now: NOW }),
        Codes.invalidInput,
        'link',
      )
      const login = store.login({ identity: foreign, grant: grant(), provisionUnknown: true, now: NOW })
      await expectCode(check, login, Codes.invalidInput, 'login')
      check(await untouched(store, accountId), 'a foreign identity changed the account')
      const resolved = await store.resolveLink({ accountId, provider: `${store.provider}-other` })
      check(resolved === null, 'resolveLink answered for another provider')
    },
  ),
  conformanceCase(
    'oauth-accounts.input.versions-and-limits',
    'non-positive or fractional versions and out-of-range counts are typed invalid-input errors',
    async ({ store, accountStore }, check) => {
      const { link, reference } = await linkedAccount(store, accountStore)
      const id = link.providerAccountId
      for (const version of [0, -1, 1.5, Number.NaN, loose<number>('1')]) {
        const swap = store.replaceTokens({
          providerAccountId: id,
          expectedVersion: version,
          tokens: tokens(),
        })
        await expectCode(check, swap, Codes.invalidInput, `replaceTokens at version ${String(version)}`)
        await expectCode(
          check,
          store.discardTokens({ providerAccountId: id, expectedVersion: version }),
          Codes.invalidInput,
          'discard',
        )
      }
      check(
        (await store.getTokens(id))?.reference.version === reference?.version,
        'a refused swap changed the tokens',
      )
      await expectCode(
        check,
        store.claimRevocationRetries({ now: NOW, leaseSeconds: 0, limit: 1 }),
        Codes.invalidInput,
        'lease 0',
      )
      await expectCode(
        check,
        store.claimRevocationRetries({ now: NOW, leaseSeconds: 60, limit: 0 }),
        Codes.invalidInput,
        'limit 0',
      )
      const stage = store.stageRevocationRetry({
        providerAccountId: id,
        expectedVersion: reference?.version ?? 0,
        tokens: tokens(),
        failedTokenTypes: [],
        occurredAt: NOW,
      })
      await expectCode(check, stage, Codes.invalidInput, 'staging with no failed token types')
      check((await store.getTokens(id)) !== null, 'a refused staging discarded the tokens')
    },
  ),
]
