import type { ProtectedEnvelope } from '@portcullis/core/protection'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  Codes,
  count,
  expectCode,
  grant,
  identity,
  linkedAccount,
  NOW,
  type OAuthAccountStoreFixture,
  sameTokens,
  tokens,
} from './fixture.js'

type Case = ConformanceCase<OAuthAccountStoreFixture>

/** True when any secret shows up in the envelope, as UTF-8 or base64/base64url. */
export function envelopeLeaks(envelope: ProtectedEnvelope, secrets: readonly string[]): boolean {
  const bytes = Buffer.from(envelope.ciphertext)
  const views = [
    bytes.toString('latin1'),
    bytes.toString('base64'),
    bytes.toString('base64url'),
    envelope.keyVersion,
  ]
  return secrets.some(
    (secret) => views.some((view) => view.includes(secret)) || bytes.includes(Buffer.from(secret)),
  )
}

export const vaultCases: readonly Case[] = [
  conformanceCase(
    'oauth-accounts.vault.round-trip',
    'retained tokens come back exactly, with a secret-free reference of version >= 1',
    async ({ store, accountStore }, check) => {
      const retained = tokens('round-trip', ['email', 'openid'])
      const person = identity(store)
      const outcome = await store.login({
        identity: person,
        grant: grant(),
        tokens: retained,
        provisionUnknown: true,
        now: NOW,
      })
      const reference = outcome.tokens
      check(
        reference !== null && Number.isSafeInteger(reference.version) && reference.version >= 1,
        'bad reference',
      )
      check(!JSON.stringify(reference).includes(retained.accessToken), 'the reference carries a token')
      const stored = await store.getTokens(outcome.link.providerAccountId)
      check(stored !== null && sameTokens(stored.tokens, retained), 'tokens did not round-trip')
      check(stored?.reference.version === reference?.version, 'getTokens reports another version')
      check(stored?.reference.scopes.join(' ') === 'email openid', 'reference scopes differ')
    },
  ),
  conformanceCase(
    'oauth-accounts.vault.ciphertext',
    'the stored envelope contains no token in plaintext or base64',
    async ({ store, accountStore, inspector }, check) => {
      const { link, tokens: retained } = await linkedAccount(store, accountStore)
      const envelope = await inspector.readVaultEnvelope(link.providerAccountId)
      check(envelope !== null, 'the inspector found no envelope for retained tokens')
      const secrets = [retained.accessToken, retained.refreshToken ?? '', retained.idToken ?? '']
      check(
        envelope !== null && !envelopeLeaks(envelope, secrets),
        'a token is readable in the stored envelope',
      )
    },
  ),
  conformanceCase(
    'oauth-accounts.vault.bound-to-row',
    "an envelope moved onto another account's row does not open; the original still does",
    async ({ store, accountStore, inspector }, check) => {
      const victim = await linkedAccount(store, accountStore)
      const attacker = await linkedAccount(store, accountStore)
      const stolen = await inspector.readVaultEnvelope(victim.link.providerAccountId)
      check(stolen !== null, 'no envelope to move')
      if (stolen === null) return
      check(
        await inspector.writeVaultEnvelope(attacker.link.providerAccountId, stolen),
        'inspector could not write',
      )
      await expectCode(
        check,
        store.getTokens(attacker.link.providerAccountId),
        Codes.vaultUnavailable,
        'moved envelope',
      )
      const original = await store.getTokens(victim.link.providerAccountId)
      check(
        original !== null && sameTokens(original.tokens, victim.tokens),
        'the original envelope stopped opening',
      )
    },
  ),
  conformanceCase(
    'oauth-accounts.vault.not-retained',
    'a login or link without tokens retains none and discards tokens retained earlier',
    async ({ store, accountStore }, check) => {
      const person = identity(store)
      const bare = await store.login({ identity: person, grant: grant(), provisionUnknown: true, now: NOW })
      check(bare.tokens === null, 'a login without tokens reported a token reference')
      check((await store.getTokens(bare.link.providerAccountId)) === null, 'tokens appeared from nowhere')
      await store.login({
        identity: person,
        grant: grant(),
        tokens: tokens(),
        provisionUnknown: false,
        now: NOW,
      })
      check((await store.getTokens(bare.link.providerAccountId)) !== null, 'login did not retain tokens')
      await store.login({ identity: person, grant: grant(), provisionUnknown: false, now: NOW })
      check(
        (await store.getTokens(bare.link.providerAccountId)) === null,
        'stale tokens survived a non-retaining login',
      )
    },
  ),
  conformanceCase(
    'oauth-accounts.vault.cas-one-winner',
    'of 32 concurrent swaps at one version exactly one wins, and its tokens are the ones stored',
    async ({ store, accountStore }, check) => {
      const { link, reference } = await linkedAccount(store, accountStore)
      const expectedVersion = reference?.version ?? 0
      const candidates = Array.from({ length: 32 }, (_, index) => tokens(`swap-${index}`))
      const results = await Promise.all(
        candidates.map((candidate) =>
          store.replaceTokens({
            providerAccountId: link.providerAccountId,
            expectedVersion,
            tokens: candidate,
          }),
        ),
      )
      check(
        count(results, (result) => result !== null) === 1,
        `${count(results, (r) => r !== null)} swaps won`,
      )
      const winner = results.findIndex((result) => result !== null)
      const stored = await store.getTokens(link.providerAccountId)
      const winning = candidates[winner]
      check(
        stored !== null && winning !== undefined && sameTokens(stored.tokens, winning),
        'stored tokens are not the winner',
      )
      check((stored?.reference.version ?? 0) > expectedVersion, 'the version did not grow')
      check(
        stored?.reference.version === results[winner]?.version,
        'the winner reference is not the stored version',
      )
    },
  ),
  conformanceCase(
    'oauth-accounts.vault.versions-grow',
    'every swap yields a higher version and a stale version never swaps',
    async ({ store, accountStore }, check) => {
      const { link, reference } = await linkedAccount(store, accountStore)
      let version = reference?.version ?? 0
      const first = version
      for (let step = 0; step < 3; step += 1) {
        const next = await store.replaceTokens({
          providerAccountId: link.providerAccountId,
          expectedVersion: version,
          tokens: tokens(),
        })
        check(next !== null && next.version > version, `swap ${step} did not raise the version`)
        version = next?.version ?? version
      }
      const stale = await store.replaceTokens({
        providerAccountId: link.providerAccountId,
        expectedVersion: first,
        tokens: tokens(),
      })
      check(stale === null, 'a stale version swapped')
    },
  ),
  conformanceCase(
    'oauth-accounts.vault.no-aba',
    'after discard and re-store, a swap with the old version fails (versions never restart)',
    async ({ store, accountStore }, check) => {
      const person = identity(store)
      const first = await store.login({
        identity: person,
        grant: grant(),
        tokens: tokens('a'),
        provisionUnknown: true,
        now: NOW,
      })
      const id = first.link.providerAccountId
      const oldVersion = first.tokens?.version ?? 0
      check(
        await store.discardTokens({ providerAccountId: id, expectedVersion: oldVersion }),
        'discard failed',
      )
      const restored = tokens('b')
      const again = await store.login({
        identity: person,
        grant: grant(),
        tokens: restored,
        provisionUnknown: false,
        now: NOW,
      })
      check(
        again.tokens !== null && again.tokens.version > oldVersion,
        'the re-stored version did not exceed the old one',
      )
      const stale = await store.replaceTokens({
        providerAccountId: id,
        expectedVersion: oldVersion,
        tokens: tokens('c'),
      })
      check(stale === null, 'ABA: a swap with the version of discarded tokens succeeded')
      const stored = await store.getTokens(id)
      check(stored !== null && sameTokens(stored.tokens, restored), 'the re-stored tokens were overwritten')
    },
  ),
  conformanceCase(
    'oauth-accounts.vault.conditional-discard',
    'discard with a stale version keeps the tokens; with the current version or none it removes them once',
    async ({ store, accountStore }, check) => {
      const { link, reference } = await linkedAccount(store, accountStore)
      const id = link.providerAccountId
      const swapped = await store.replaceTokens({
        providerAccountId: id,
        expectedVersion: reference?.version ?? 0,
        tokens: tokens(),
      })
      check(
        !(await store.discardTokens({ providerAccountId: id, expectedVersion: reference?.version ?? 0 })),
        'stale discard',
      )
      check((await store.getTokens(id)) !== null, 'a stale discard removed the tokens')
      check(
        await store.discardTokens({ providerAccountId: id, expectedVersion: swapped?.version ?? 0 }),
        'current discard',
      )
      check(!(await store.discardTokens({ providerAccountId: id })), 'a second discard reported a deletion')
      check((await store.getTokens(id)) === null, 'tokens survived the discard')
      const other = await linkedAccount(store, accountStore)
      check(
        await store.discardTokens({ providerAccountId: other.link.providerAccountId }),
        'unconditional discard failed',
      )
      check(
        !(await store.discardTokens({ providerAccountId: 'pa-that-does-not-exist' })),
        'discarded unknown tokens',
      )
    },
  ),
]
