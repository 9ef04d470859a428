import type { SessionRecord, SessionStore } from '@portcullis/core/local-accounts'
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
  handle,
  label,
  loose,
  MINUTE,
  type SessionStoreFixture,
  sameTime,
  T0,
  unique,
} from './fixture.js'

type Case = ConformanceCase<SessionStoreFixture>
type Mutable<T> = { -readonly [K in keyof T]: T[K] }

const INVALID = 'local.invalid_input'

/** A fresh session: created at T0, idle expiry in 30 minutes, absolute expiry in 8 hours. */
export function session(overrides: Partial<Mutable<SessionRecord>> = {}): SessionRecord {
  return {
    digest: digest(),
    handle: handle(),
    accountId: unique('account'),
    securityEpoch: 1,
    createdAt: T0,
    lastSeenAt: T0,
    idleExpiresAt: at(30 * MINUTE),
    absoluteExpiresAt: at(8 * HOUR),
    ...overrides,
  }
}

export function sameSession(a: SessionRecord | null | undefined, b: SessionRecord): boolean {
  return (
    a !== null &&
    a !== undefined &&
    a.digest === b.digest &&
    a.handle === b.handle &&
    a.accountId === b.accountId &&
    a.securityEpoch === b.securityEpoch &&
    sameTime(a.createdAt, b.createdAt) &&
    sameTime(a.lastSeenAt, b.lastSeenAt) &&
    sameTime(a.idleExpiresAt, b.idleExpiresAt) &&
    sameTime(a.absoluteExpiresAt, b.absoluteExpiresAt) &&
    a.userAgent === b.userAgent &&
    a.clientAddress === b.clientAddress
  )
}

async function stored(
  store: SessionStore,
  overrides: Partial<Mutable<SessionRecord>> = {},
): Promise<SessionRecord> {
  const created = session(overrides)
  await store.create({ session: created })
  return created
}

export const sessionCases: readonly Case[] = [
  conformanceCase(
    'sessions.round-trip',
    'get returns exactly the created session (optional fields only when given) and null for other digests',
    async ({ store }, check) => {
      const full = await stored(store, {
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
        clientAddress: '2001:db8::7',
      })
      const bare = await stored(store, { securityEpoch: 0 })
      const [gotFull, gotBare] = [await store.get(full.digest, T0), await store.get(bare.digest, T0)]
      check(sameSession(gotFull, full), 'the session with user agent and address differs')
      check(sameSession(gotBare, bare), 'the session without optional fields differs')
      check(
        gotBare !== null && !('userAgent' in gotBare) && !('clientAddress' in gotBare),
        'absent fields appear',
      )
      check((await store.get(digest(), T0)) === null, 'an unknown digest returned a session')
    },
  ),
  conformanceCase(
    'sessions.expiry',
    'a session is visible until just before its idle or absolute expiry and invisible from then on',
    async ({ store }, check) => {
      const idle = await stored(store)
      check((await store.get(idle.digest, at(30 * MINUTE - 1))) !== null, 'gone 1 ms before idle expiry')
      check((await store.get(idle.digest, at(30 * MINUTE))) === null, 'visible at idle expiry')
      const absolute = await stored(store, { idleExpiresAt: at(HOUR), absoluteExpiresAt: at(HOUR) })
      check((await store.get(absolute.digest, at(HOUR - 1))) !== null, 'gone 1 ms before absolute expiry')
      check((await store.get(absolute.digest, at(HOUR))) === null, 'visible at absolute expiry')
      const listed = await store.list({ accountId: idle.accountId, now: at(30 * MINUTE) })
      check(listed.length === 0, 'list shows an expired session')
    },
  ),
  conformanceCase(
    'sessions.touch',
    'touch moves lastSeenAt and the idle expiry forward only, caps it at the absolute expiry, and never revives',
    async ({ store }, check) => {
      const live = await stored(store)
      check(
        await store.touch({
          digest: live.digest,
          lastSeenAt: at(10 * MINUTE),
          idleExpiresAt: at(40 * MINUTE),
        }),
        'touching a live session answered false',
      )
      let got = await store.get(live.digest, at(10 * MINUTE))
      check(
        sameTime(got?.idleExpiresAt, at(40 * MINUTE)) && sameTime(got?.lastSeenAt, at(10 * MINUTE)),
        'not extended',
      )
      check(
        await store.touch({
          digest: live.digest,
          lastSeenAt: at(5 * MINUTE),
          idleExpiresAt: at(35 * MINUTE),
        }),
        'an older touch of a live session answered false',
      )
      got = await store.get(live.digest, at(10 * MINUTE))
      check(sameTime(got?.idleExpiresAt, at(40 * MINUTE)), 'an older touch shortened the idle expiry')
      check(sameTime(got?.lastSeenAt, at(10 * MINUTE)), 'an older touch moved lastSeenAt back')
      await store.touch({ digest: live.digest, lastSeenAt: at(30 * MINUTE), idleExpiresAt: at(9 * HOUR) })
      got = await store.get(live.digest, at(30 * MINUTE))
      check(sameTime(got?.idleExpiresAt, at(8 * HOUR)), 'touch extended past the absolute expiry')
      check((await store.get(live.digest, at(8 * HOUR))) === null, 'visible at absolute expiry after touch')
      const idle = await stored(store)
      const revived = await store.touch({
        digest: idle.digest,
        lastSeenAt: at(30 * MINUTE),
        idleExpiresAt: at(HOUR),
      })
      check(!revived, 'touching an idle-expired session answered true')
      check((await store.get(idle.digest, at(30 * MINUTE))) === null, 'touch revived an idle-expired session')
      const unknown = await store.touch({ digest: digest(), lastSeenAt: T0, idleExpiresAt: at(MINUTE) })
      check(!unknown, 'touching an unknown session answered true')
    },
  ),
  conformanceCase(
    'sessions.concurrent-touch',
    'of 16 concurrent touches in any order the latest idle expiry and lastSeenAt win',
    async (fixture, check) => {
      const live = await stored(fixture.store)
      const results = await concurrently(fixture, 16, (store, index) => {
        const offset = ((index * 7) % 16) * MINUTE
        return store.touch({
          digest: live.digest,
          lastSeenAt: at(offset),
          idleExpiresAt: at(offset + 30 * MINUTE),
        })
      })
      check(results.every(Boolean), 'a touch of a live session answered false')
      const got = await fixture.store.get(live.digest, T0)
      check(sameTime(got?.idleExpiresAt, at(45 * MINUTE)), 'a concurrent touch shortened the idle expiry')
      check(sameTime(got?.lastSeenAt, at(15 * MINUTE)), 'a concurrent touch moved lastSeenAt back')
    },
  ),
  conformanceCase(
    'sessions.rotation',
    'create with replaces deletes the replaced session atomically (the handle may carry over); an unknown one is ignored',
    async ({ store }, check) => {
      const old = await stored(store)
      const next = session({
        accountId: old.accountId,
        handle: old.handle,
        createdAt: at(MINUTE),
        lastSeenAt: at(MINUTE),
      })
      await store.create({ session: next, replaces: old.digest })
      check((await store.get(old.digest, at(MINUTE))) === null, 'the replaced session survived')
      check(sameSession(await store.get(next.digest, at(MINUTE)), next), 'the replacement is missing')
      const fresh = session()
      await store.create({ session: fresh, replaces: digest() })
      check(sameSession(await store.get(fresh.digest, T0), fresh), 'replacing an unknown session failed')
    },
  ),
  conformanceCase(
    'sessions.duplicates',
    "a stored digest, or a handle the account already uses, is local.store_duplicate; another account's handle is fine",
    async ({ store }, check) => {
      const first = await stored(store)
      await expectCode(
        check,
        store.create({ session: session({ digest: first.digest }) }),
        'local.store_duplicate',
        'a stored digest',
      )
      const sameHandle = session({ accountId: first.accountId, handle: first.handle })
      await expectCode(
        check,
        store.create({ session: sameHandle }),
        'local.store_duplicate',
        "the account's handle",
      )
      check((await store.get(sameHandle.digest, T0)) === null, 'the refused session was stored')
      const victim = await stored(store, { accountId: first.accountId })
      const replacing = session({ accountId: first.accountId, handle: first.handle })
      await expectCode(
        check,
        store.create({ session: replacing, replaces: victim.digest }),
        'local.store_duplicate',
        'a duplicate that replaces another session',
      )
      check(
        (await store.get(victim.digest, T0)) !== null,
        'a refused create still deleted the replaced session',
      )
      check(
        sameSession(await store.get(first.digest, T0), first),
        'a refused duplicate changed the first session',
      )
      const elsewhere = session({ handle: first.handle })
      await store.create({ session: elsewhere })
      check(
        sameSession(await store.get(elsewhere.digest, T0), elsewhere),
        "another account's handle was refused",
      )
    },
  ),
  conformanceCase(
    'sessions.list',
    "list answers the account's live sessions, oldest first, and nobody else's",
    async ({ store }, check) => {
      const accountId = unique('account')
      const newer = await stored(store, { accountId, createdAt: at(2 * MINUTE), lastSeenAt: at(2 * MINUTE) })
      const older = await stored(store, { accountId, createdAt: at(MINUTE), lastSeenAt: at(MINUTE) })
      await stored(store, { accountId, idleExpiresAt: at(3 * MINUTE) })
      await stored(store)
      const listed = await store.list({ accountId, now: at(3 * MINUTE) })
      check(listed.length === 2, `list answered ${listed.length} sessions`)
      check(sameSession(listed[0], older) && sameSession(listed[1], newer), 'wrong sessions or order')
      check(
        (await store.list({ accountId: unique('account'), now: T0 })).length === 0,
        'a stranger has sessions',
      )
    },
  ),
  conformanceCase(
    'sessions.revoke',
    "revoke deletes by digest, by the account's handle, or every session of the account except one",
    async ({ store }, check) => {
      const accountId = unique('account')
      const [current, second, third, fourth] = [
        await stored(store, { accountId }),
        await stored(store, { accountId }),
        await stored(store, { accountId }),
        await stored(store, { accountId }),
      ]
      check((await store.revoke({ digest: second.digest })) === 1, 'revoke by digest did not count 1')
      check((await store.revoke({ digest: second.digest })) === 0, 'a second revoke counted again')
      check((await store.get(second.digest, T0)) === null, 'revoked by digest but visible')
      const stranger = unique('account')
      check(
        (await store.revoke({ accountId: stranger, handle: third.handle })) === 0,
        "another account's handle",
      )
      check((await store.get(third.digest, T0)) !== null, "a stranger revoked the account's session")
      check(
        (await store.revoke({ accountId, handle: third.handle })) === 1,
        'revoke by handle did not count 1',
      )
      check((await store.get(third.digest, T0)) === null, 'revoked by handle but visible')
      const other = await stored(store)
      const everywhere = await store.revoke({ accountId, all: true, exceptDigest: current.digest })
      check(everywhere === 1, `revoke all except current counted ${everywhere}`)
      check((await store.get(fourth.digest, T0)) === null, 'a session survived revoke-all')
      check((await store.get(current.digest, T0)) !== null, 'the excepted session was revoked')
      check((await store.get(other.digest, T0)) !== null, "another account's session was revoked")
      check((await store.revoke({ accountId, all: true })) === 1, 'revoke all did not take the last one')
      check((await store.list({ accountId, now: T0 })).length === 0, 'sessions left after revoke all')
    },
  ),
  conformanceCase(
    'sessions.input',
    'malformed records and requests are typed invalid-input errors and store nothing',
    async ({ store }, check) => {
      const refused = (overrides: Record<string, unknown>) => session(loose(overrides))
      const bad: Record<string, unknown>[] = [
        ...BAD_DIGESTS.map((value) => ({ digest: value })),
        ...['short', 'has space!', 'x'.repeat(129), 12].map((value) => ({ handle: value })),
        ...BAD_IDS.map((value) => ({ accountId: value })),
        ...[-1, 1.5, '1', undefined].map((value) => ({ securityEpoch: value })),
        ...BAD_DATES.map((value) => ({ createdAt: value })),
        { lastSeenAt: at(-1) },
        { idleExpiresAt: T0 },
        { idleExpiresAt: at(9 * HOUR) },
        { userAgent: 'x'.repeat(513) },
        { userAgent: '' },
        { clientAddress: 'x'.repeat(65) },
        { clientAddress: 'line\nbreak' },
      ]
      for (const overrides of bad) {
        const candidate = refused(overrides)
        await expectCode(check, store.create({ session: candidate }), INVALID, `session ${label(overrides)}`)
        if (typeof candidate.digest === 'string' && /^[0-9a-f]{64}$/.test(candidate.digest)) {
          check(
            (await store.get(candidate.digest, T0)) === null,
            `a refused session was stored: ${label(overrides)}`,
          )
        }
      }
      const kept = await stored(store)
      const replacing = session()
      await expectCode(check, store.create({ session: replacing, replaces: 'nope' }), INVALID, 'replaces')
      await expectCode(
        check,
        store.create({ session: kept, replaces: kept.digest }),
        INVALID,
        'replacing itself',
      )
      for (const value of BAD_DIGESTS) {
        await expectCode(check, store.get(loose(value), T0), INVALID, `get ${label(value)}`)
        await expectCode(check, store.revoke(loose({ digest: value })), INVALID, `revoke ${label(value)}`)
      }
      for (const value of BAD_DATES) {
        await expectCode(check, store.get(kept.digest, loose(value)), INVALID, `get at ${label(value)}`)
      }
      const touch = { digest: kept.digest, lastSeenAt: at(MINUTE), idleExpiresAt: at(MINUTE) }
      await expectCode(check, store.touch(touch), INVALID, 'touch with idleExpiresAt at lastSeenAt')
      for (const request of [
        {},
        { accountId: kept.accountId },
        { accountId: kept.accountId, all: false },
        { accountId: kept.accountId, all: 'yes' },
        { accountId: kept.accountId, handle: kept.handle, all: true },
        { digest: kept.digest, accountId: kept.accountId, all: true },
      ]) {
        await expectCode(check, store.revoke(loose(request)), INVALID, `revoke ${label(request)}`)
      }
      await expectCode(
        check,
        store.list(loose({ accountId: ' ', now: T0 })),
        INVALID,
        'list with a blank account',
      )
      check(sameSession(await store.get(kept.digest, T0), kept), 'refused requests changed a session')
      check((await store.get(replacing.digest, T0)) === null, 'a refused replacement was stored')
    },
  ),
]
