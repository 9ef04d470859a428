import type {
  CreateRefreshFamilyRequest,
  RefreshFamilyRecord,
  RefreshTokenStore,
} from '@portcullis/core/local-accounts'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  at,
  BAD_DATES,
  BAD_DIGESTS,
  BAD_IDS,
  concurrently,
  digest,
  expectCode,
  HOUR,
  label,
  loose,
  MINUTE,
  type RefreshTokenStoreFixture,
  sameTime,
  T0,
  unique,
} from './fixture.js'

type Case = ConformanceCase<RefreshTokenStoreFixture>

const INVALID = 'local.invalid_input'
const DAY = 24 * HOUR

/** A family created at T0 for 30 days whose first token lives 1 hour. */
function familyRequest(overrides: Partial<CreateRefreshFamilyRequest> = {}): CreateRefreshFamilyRequest {
  return {
    familyId: unique('family'),
    accountId: unique('account'),
    securityEpoch: 4,
    createdAt: T0,
    absoluteExpiresAt: at(30 * DAY),
    token: { digest: digest(), expiresAt: at(HOUR) },
    ...overrides,
  }
}

async function family(store: RefreshTokenStore, overrides: Partial<CreateRefreshFamilyRequest> = {}) {
  const request = familyRequest(overrides)
  await store.createFamily(request)
  return request
}

function sameFamily(a: RefreshFamilyRecord | undefined, b: RefreshFamilyRecord): boolean {
  return (
    a !== undefined &&
    a.familyId === b.familyId &&
    a.accountId === b.accountId &&
    a.securityEpoch === b.securityEpoch &&
    sameTime(a.createdAt, b.createdAt) &&
    sameTime(a.absoluteExpiresAt, b.absoluteExpiresAt)
  )
}

/** Rotates `presented` at `now` into a fresh token living one hour. */
function rotate(store: RefreshTokenStore, presented: string, now = at(MINUTE), next = digest()) {
  return store.rotate({
    presentedDigest: presented,
    next: { digest: next, expiresAt: new Date(now.getTime() + HOUR) },
    now,
  })
}

export const refreshCases: readonly Case[] = [
  conformanceCase(
    'refresh.rotate',
    'a live token rotates once into the next, which rotates in turn; the outcome carries the family',
    async ({ store }, check) => {
      const created = await family(store)
      const second = digest()
      const first = await rotate(store, created.token.digest, at(MINUTE), second)
      check(first.outcome === 'rotated', `first rotation: ${first.outcome}`)
      check(first.outcome === 'rotated' && sameFamily(first.family, created), 'the family differs')
      check(first.outcome === 'rotated' && sameTime(first.expiresAt, at(MINUTE + HOUR)), 'wrong next expiry')
      const third = await rotate(store, second, at(2 * MINUTE))
      check(third.outcome === 'rotated', `rotating the next token: ${third.outcome}`)
      check((await rotate(store, digest())).outcome === 'invalid', 'an unknown token was not invalid')
    },
  ),
  conformanceCase(
    'refresh.reuse-revokes-family',
    'presenting a rotated token is reused (with family, account and rotation time) and revokes the family',
    async ({ store }, check) => {
      const created = await family(store)
      const second = digest()
      await rotate(store, created.token.digest, at(MINUTE), second)
      const replay = await rotate(store, created.token.digest, at(2 * MINUTE))
      check(replay.outcome === 'reused', `replaying a rotated token: ${replay.outcome}`)
      check(
        replay.outcome === 'reused' &&
          replay.familyId === created.familyId &&
          replay.accountId === created.accountId &&
          sameTime(replay.rotatedAt, at(MINUTE)),
        'the reuse outcome names the wrong family, account or time',
      )
      check(
        (await rotate(store, second, at(3 * MINUTE))).outcome === 'invalid',
        'the live token survived reuse',
      )
      const again = await rotate(store, created.token.digest, at(4 * MINUTE))
      check(again.outcome === 'reused', `a second replay: ${again.outcome}`)
    },
  ),
  conformanceCase(
    'refresh.concurrent-rotation',
    'of 16 concurrent rotations of one token exactly one rotates, the rest are reused, and the family ends revoked',
    async (fixture, check) => {
      const created = await family(fixture.store)
      const nexts = Array.from({ length: 16 }, () => digest())
      const results = await concurrently(fixture, 16, (store, index) =>
        rotate(store, created.token.digest, at(MINUTE), nexts[index]),
      )
      const rotated = results.filter((result) => result.outcome === 'rotated').length
      const reused = results.filter((result) => result.outcome === 'reused').length
      check(rotated === 1 && reused === 15, `${rotated} rotated, ${reused} reused`)
      const winner = nexts[results.findIndex((result) => result.outcome === 'rotated')]
      const after = winner === undefined ? undefined : await rotate(fixture.store, winner, at(2 * MINUTE))
      check(after?.outcome === 'invalid', "the winner's token still works after reuse was detected")
    },
  ),
  conformanceCase(
    'refresh.expiry',
    'a token is invalid from its expiresAt; the next expiry is capped at the family end, where everything stops',
    async ({ store }, check) => {
      const short = await family(store)
      check((await rotate(store, short.token.digest, at(HOUR))).outcome === 'invalid', 'rotated at expiresAt')
      const ending = await family(store, {
        absoluteExpiresAt: at(HOUR),
        token: { digest: digest(), expiresAt: at(HOUR) },
      })
      const next = digest()
      const capped = await rotate(store, ending.token.digest, at(HOUR - 1), next)
      check(
        capped.outcome === 'rotated' && sameTime(capped.expiresAt, at(HOUR)),
        'next expiry not capped at family end',
      )
      check((await rotate(store, next, at(HOUR))).outcome === 'invalid', 'rotated at the family end')
      check(
        (await rotate(store, ending.token.digest, at(HOUR))).outcome === 'invalid',
        'reuse reported after the end',
      )
    },
  ),
  conformanceCase(
    'refresh.revoke',
    'revoke by any token of a family or by id ends the family; unknown tokens and repeats answer false',
    async ({ store }, check) => {
      const first = await family(store)
      const second = digest()
      await rotate(store, first.token.digest, at(MINUTE), second)
      check(
        await store.revoke({ digest: first.token.digest, now: at(2 * MINUTE) }),
        'revoke by a rotated token',
      )
      check(
        (await rotate(store, second, at(3 * MINUTE))).outcome === 'invalid',
        'the live token survived revoke',
      )
      check(!(await store.revoke({ digest: second, now: at(3 * MINUTE) })), 'a repeated revoke answered true')
      check(!(await store.revoke({ digest: digest(), now: T0 })), 'an unknown token answered true')
      const byId = await family(store)
      check(await store.revoke({ familyId: byId.familyId, now: T0 }), 'revoke by family id')
      check(
        (await rotate(store, byId.token.digest)).outcome === 'invalid',
        'a token of a revoked family rotated',
      )
      check(!(await store.revoke({ familyId: unique('family'), now: T0 })), 'an unknown family answered true')
      const ended = await family(store, { absoluteExpiresAt: at(HOUR) })
      check(
        !(await store.revoke({ familyId: ended.familyId, now: at(HOUR) })),
        'an ended family answered true',
      )
    },
  ),
  conformanceCase(
    'refresh.revoke-account',
    "revokeAccount ends every live family of the account and counts them, and nobody else's",
    async ({ store }, check) => {
      const accountId = unique('account')
      const [a, b, revoked, ended] = [
        await family(store, { accountId }),
        await family(store, { accountId }),
        await family(store, { accountId }),
        await family(store, {
          accountId,
          absoluteExpiresAt: at(MINUTE),
          token: { digest: digest(), expiresAt: at(MINUTE) },
        }),
      ]
      await store.revoke({ familyId: revoked.familyId, now: T0 })
      const other = await family(store)
      const count = await store.revokeAccount({ accountId, now: at(MINUTE) })
      check(count === 2, `revokeAccount counted ${count}, expected 2 (one already revoked, one ended)`)
      for (const done of [a, b, ended]) {
        check((await rotate(store, done.token.digest, at(MINUTE))).outcome === 'invalid', 'a family survived')
      }
      check(
        (await rotate(store, other.token.digest, at(MINUTE))).outcome === 'rotated',
        "another account's family",
      )
      check((await store.revokeAccount({ accountId, now: at(MINUTE) })) === 0, 'a repeat counted again')
    },
  ),
  conformanceCase(
    'refresh.duplicates',
    'a stored family id or token digest is local.store_duplicate and changes nothing',
    async ({ store }, check) => {
      const first = await family(store)
      await expectCode(
        check,
        store.createFamily(familyRequest({ familyId: first.familyId })),
        'local.store_duplicate',
        'family id',
      )
      const sameToken = familyRequest({ token: { digest: first.token.digest, expiresAt: at(HOUR) } })
      await expectCode(check, store.createFamily(sameToken), 'local.store_duplicate', 'first token digest')
      const other = await family(store)
      await expectCode(
        check,
        rotate(store, first.token.digest, at(MINUTE), other.token.digest),
        'local.store_duplicate',
        'rotating into a stored digest',
      )
      check(
        (await rotate(store, first.token.digest)).outcome === 'rotated',
        'a refused rotation used the token',
      )
      check(
        (await rotate(store, other.token.digest)).outcome === 'rotated',
        'a refused rotation touched the other',
      )
      check(!(await store.revoke({ familyId: sameToken.familyId, now: T0 })), 'a refused family was stored')
    },
  ),
  conformanceCase(
    'refresh.input',
    'malformed families, digests, ids and dates are typed invalid-input errors and write nothing',
    async ({ store }, check) => {
      const bad: Partial<Record<keyof CreateRefreshFamilyRequest, unknown>>[] = [
        ...BAD_IDS.map((value) => ({ familyId: value })),
        ...BAD_IDS.map((value) => ({ accountId: value })),
        ...[-1, 2.5, '4'].map((value) => ({ securityEpoch: value })),
        ...BAD_DATES.map((value) => ({ createdAt: value })),
        ...BAD_DIGESTS.map((value) => ({ token: { digest: value, expiresAt: at(HOUR) } })),
        { token: { digest: digest(), expiresAt: T0 } },
        { token: { digest: digest(), expiresAt: at(31 * DAY) } },
        { token: undefined },
      ]
      for (const overrides of bad) {
        const request = familyRequest(loose(overrides))
        await expectCode(check, store.createFamily(request), INVALID, `createFamily ${label(overrides)}`)
        if (typeof request.familyId === 'string' && request.familyId.startsWith('family-')) {
          check(!(await store.revoke({ familyId: request.familyId, now: T0 })), 'a refused family was stored')
        }
      }
      const live = await family(store)
      for (const value of BAD_DIGESTS) {
        await expectCode(check, rotate(store, loose(value)), INVALID, `rotate ${label(value)}`)
        await expectCode(
          check,
          store.rotate(
            loose({
              presentedDigest: live.token.digest,
              next: { digest: value, expiresAt: at(HOUR) },
              now: T0,
            }),
          ),
          INVALID,
          `next digest ${label(value)}`,
        )
        await expectCode(
          check,
          store.revoke(loose({ digest: value, now: T0 })),
          INVALID,
          `revoke ${label(value)}`,
        )
      }
      for (const value of BAD_DATES) {
        const request = {
          presentedDigest: live.token.digest,
          next: { digest: digest(), expiresAt: at(HOUR) },
          now: value,
        }
        await expectCode(check, store.rotate(loose(request)), INVALID, `rotate at ${label(value)}`)
        await expectCode(
          check,
          store.revokeAccount(loose({ accountId: live.accountId, now: value })),
          INVALID,
          'revokeAccount',
        )
      }
      await expectCode(
        check,
        rotate(store, live.token.digest, at(MINUTE), live.token.digest),
        INVALID,
        'rotate into itself',
      )
      const stale = {
        presentedDigest: live.token.digest,
        next: { digest: digest(), expiresAt: at(MINUTE) },
        now: at(MINUTE),
      }
      await expectCode(check, store.rotate(stale), INVALID, 'next token expiring at now')
      await expectCode(check, store.revoke(loose({ now: T0 })), INVALID, 'revoke with neither key')
      await expectCode(
        check,
        store.revoke(loose({ digest: live.token.digest, familyId: live.familyId, now: T0 })),
        INVALID,
        'revoke with both keys',
      )
      await expectCode(check, store.revoke(loose({ familyId: live.familyId })), INVALID, 'revoke without now')
      check(
        (await rotate(store, live.token.digest)).outcome === 'rotated',
        'refused requests used or revoked the token',
      )
    },
  ),
]
