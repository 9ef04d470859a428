import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  at,
  challenge,
  codeOf,
  digest,
  type PasskeyChallengeStoreFixture,
  sameChallenge,
  T0,
} from './fixture.js'

type Case = ConformanceCase<PasskeyChallengeStoreFixture>

export const challengeCases: readonly Case[] = [
  conformanceCase(
    'passkey-challenge.round-trip',
    'consume returns the exact challenge once, only for its challenge and binding digests',
    async ({ store }, check) => {
      const registration = challenge()
      const signIn = challenge({ ceremony: 'authentication', accountId: null, sessionDigest: null })
      const stepUp = challenge({ ceremony: 'authentication', purpose: 'account.delete' })
      for (const saved of [registration, signIn, stepUp]) await store.createChallenge(saved)
      for (const saved of [registration, signIn, stepUp]) {
        check(
          sameChallenge(await store.consumeChallenge(saved, T0), saved),
          `the ${saved.ceremony} challenge differs`,
        )
        check((await store.consumeChallenge(saved, T0)) === null, 'a consumed challenge came back')
      }
    },
  ),
  conformanceCase(
    'passkey-challenge.other-browser',
    "a lookup with another browser's binding finds nothing and leaves the challenge for its own browser",
    async ({ store }, check) => {
      const saved = challenge()
      await store.createChallenge(saved)
      check(
        (await store.consumeChallenge(
          { challengeDigest: saved.challengeDigest, bindingDigest: digest() },
          T0,
        )) === null,
        'another binding consumed it',
      )
      check(sameChallenge(await store.consumeChallenge(saved, T0), saved), 'the wrong lookup burned it')
    },
  ),
  conformanceCase(
    'passkey-challenge.expiry',
    'a challenge is consumed until just before expiresAt and never at it',
    async ({ store }, check) => {
      const early = challenge()
      const late = challenge()
      await store.createChallenge(early)
      await store.createChallenge(late)
      check(
        sameChallenge(await store.consumeChallenge(early, at(299_999)), early),
        '1 ms before expiry it was refused',
      )
      check((await store.consumeChallenge(late, at(300_000))) === null, 'an expired challenge was returned')
    },
  ),
  conformanceCase(
    'passkey-challenge.concurrent-consume',
    'of 20 concurrent consumers of one challenge exactly one gets it',
    async ({ store }, check) => {
      const saved = challenge()
      await store.createChallenge(saved)
      const results = await Promise.all(Array.from({ length: 20 }, () => store.consumeChallenge(saved, T0)))
      check(results.filter((result) => result !== null).length === 1, 'not exactly one consumer won')
    },
  ),
  conformanceCase(
    'passkey-challenge.purge',
    'purging removes challenges expired at now and keeps later ones',
    async ({ store }, check) => {
      const expired = challenge({ expiresAt: at(10) })
      const live = challenge({ expiresAt: at(11) })
      await store.createChallenge(expired)
      await store.createChallenge(live)
      check((await store.purgeExpiredChallenges(at(10))) >= 1, 'nothing was purged')
      check((await store.consumeChallenge(expired, T0)) === null, 'an expired challenge survived the purge')
      check(sameChallenge(await store.consumeChallenge(live, T0), live), 'a live challenge was purged')
    },
  ),
  conformanceCase(
    'passkey-challenge.input',
    'malformed challenges are passkey.invalid_input and a duplicate digest keeps the first',
    async ({ store }, check) => {
      const bad: [string, () => Promise<unknown>][] = [
        ['raw challenge', () => store.createChallenge(challenge({ challengeDigest: 'not a digest' }))],
        ['unknown ceremony', () => store.createChallenge(challenge({ ceremony: 'login' as never }))],
        ['expiry before creation', () => store.createChallenge(challenge({ expiresAt: at(-1) }))],
        ['bad purpose', () => store.createChallenge(challenge({ purpose: ' spaced ' }))],
        ['bad lookup', () => store.consumeChallenge({ challengeDigest: 'x', bindingDigest: digest() }, T0)],
      ]
      for (const [name, call] of bad) {
        const code = await codeOf(call)
        check(code === 'passkey.invalid_input', `${name}: ${code}`)
      }
      const first = challenge()
      await store.createChallenge(first)
      const second = challenge({ challengeDigest: first.challengeDigest })
      const duplicate = await codeOf(() => store.createChallenge(second))
      check(duplicate === 'passkey.invalid_input', `a duplicate digest answered ${duplicate}`)
      check(sameChallenge(await store.consumeChallenge(first, T0), first), 'the duplicate replaced the first')
    },
  ),
]
