import type {
  SessionRecord,
  SessionStore,
  SetActiveOrganizationRequest,
} from '@portcullis/core/local-accounts'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  at,
  concurrently,
  expectCode,
  HOUR,
  handle,
  loose,
  MINUTE,
  type SessionStoreFixture,
  T0,
  unique,
} from './fixture.js'
import { sameSession, session } from './session-cases.js'

type Case = ConformanceCase<SessionStoreFixture>

const INVALID = 'local.invalid_input'

function setActive(store: SessionStore, request: SetActiveOrganizationRequest): Promise<boolean> {
  if (typeof store.setActiveOrganization !== 'function') {
    throw new Error('the store has no setActiveOrganization')
  }
  return store.setActiveOrganization(request)
}

async function stored(store: SessionStore, overrides: Partial<SessionRecord> = {}): Promise<SessionRecord> {
  const created = session(overrides)
  await store.create({ session: created })
  return created
}

/** The active organization of a stored session as `get` answers it (`null` when the session is gone). */
async function activeOf(store: SessionStore, record: SessionRecord): Promise<string | undefined | null> {
  const found = await store.get(record.digest, T0)
  return found === null ? null : found.activeOrganizationId
}

/** `setActiveOrganization`: the session's chosen organization, set and cleared, never of another account. */
export const sessionActiveOrganizationCases: readonly Case[] = [
  conformanceCase(
    'session.active-organization-round-trip',
    'setActiveOrganization sets and clears the choice, get, list and getWithAccountEpoch read it, touch and create keep it',
    async ({ store }, check) => {
      const record = await stored(store)
      check((await activeOf(store, record)) === undefined, 'a new session has an active organization')
      const request = { accountId: record.accountId, handle: record.handle, now: T0 }
      check(await setActive(store, { ...request, organizationId: 'org-acme' }), 'a live session was not set')
      check((await activeOf(store, record)) === 'org-acme', 'get does not answer the active organization')
      const [listed] = await store.list({ accountId: record.accountId, now: T0 })
      check(listed?.activeOrganizationId === 'org-acme', 'list does not answer the active organization')
      if (typeof store.getWithAccountEpoch === 'function') {
        const joined = await store.getWithAccountEpoch(record.digest, T0)
        check(
          joined?.session.activeOrganizationId === 'org-acme',
          'getWithAccountEpoch does not answer the active organization',
        )
      }
      const others = await store.get(record.digest, T0)
      check(
        others !== null && sameSession(others, record),
        'setting the active organization changed another field',
      )
      check(
        await store.touch({ digest: record.digest, lastSeenAt: at(MINUTE), idleExpiresAt: at(31 * MINUTE) }),
        'touch failed',
      )
      check((await activeOf(store, record)) === 'org-acme', 'touch lost the active organization')
      check(await setActive(store, { ...request, organizationId: 'org-globex' }), 'a second choice failed')
      check((await activeOf(store, record)) === 'org-globex', 'the second choice was not kept')
      check(await setActive(store, { ...request, organizationId: null }), 'clearing a live session failed')
      check((await activeOf(store, record)) === undefined, 'null did not clear the active organization')
      const rotated = session({ accountId: record.accountId, activeOrganizationId: 'org-acme' })
      await store.create({ session: rotated, replaces: record.digest })
      check(
        (await activeOf(store, rotated)) === 'org-acme',
        'a session created with an active organization lost it',
      )
    },
  ),
  conformanceCase(
    'session.active-organization-of-another-account',
    "another account's handle, an unknown handle and an expired session change nothing and answer false",
    async ({ store }, check) => {
      const mine = await stored(store)
      const theirs = await stored(store)
      check(
        !(await setActive(store, {
          accountId: mine.accountId,
          handle: theirs.handle,
          organizationId: 'org-mine',
          now: T0,
        })),
        "a session of another account was set through its handle and this account's id",
      )
      check((await activeOf(store, theirs)) === undefined, "another account's session was changed")
      check(
        !(await setActive(store, {
          accountId: theirs.accountId,
          handle: handle(),
          organizationId: 'org-x',
          now: T0,
        })),
        'an unknown handle was set',
      )
      const short = await stored(store, { idleExpiresAt: at(MINUTE), absoluteExpiresAt: at(HOUR) })
      check(
        !(await setActive(store, {
          accountId: short.accountId,
          handle: short.handle,
          organizationId: 'org-x',
          now: at(MINUTE),
        })),
        'an idle-expired session was set',
      )
      check(
        (await store.touch({
          digest: short.digest,
          lastSeenAt: at(MINUTE),
          idleExpiresAt: at(30 * MINUTE),
        })) === false,
        'the expired session was revived',
      )
    },
  ),
  conformanceCase(
    'session.active-organization-racing-revoke',
    'setActiveOrganization racing revoke on two instances never revives the session: it is gone, and setting it afterwards is false',
    async (fixture, check) => {
      const { store } = fixture
      for (let round = 0; round < 8; round += 1) {
        const record = await stored(store, { accountId: unique('racer') })
        const request = {
          accountId: record.accountId,
          handle: record.handle,
          organizationId: 'org-race',
          now: T0,
        }
        const [, removed] = await concurrently(fixture, 2, (instance, index) =>
          index === 0
            ? setActive(instance, request).then((set) => (set ? 1 : 0))
            : instance.revoke({ accountId: record.accountId, handle: record.handle }),
        )
        check(removed === 1, `round ${round}: the revoke did not delete the session`)
        check((await store.get(record.digest, T0)) === null, `round ${round}: the revoked session is back`)
        check(
          (await store.list({ accountId: record.accountId, now: T0 })).length === 0,
          `round ${round}: the account lists a session after the revoke`,
        )
        check(!(await setActive(store, request)), `round ${round}: a revoked session was set`)
      }
    },
  ),
  conformanceCase(
    'session.active-organization-input',
    'setActiveOrganization refuses a missing or malformed organization id, handle, account or time with local.invalid_input',
    async ({ store }, check) => {
      const record = await stored(store)
      const good = { accountId: record.accountId, handle: record.handle, organizationId: 'org-a', now: T0 }
      const bad: unknown[] = [
        { ...good, organizationId: undefined },
        { ...good, organizationId: '' },
        { ...good, organizationId: ' padded' },
        { ...good, organizationId: 42 },
        { ...good, organizationId: 'nul\u0000' },
        { ...good, handle: 'short' },
        { ...good, accountId: '' },
        { ...good, now: T0.toISOString() },
        null,
      ]
      for (const request of bad) {
        await expectCode(
          check,
          setActive(store, loose(request)),
          INVALID,
          JSON.stringify(request) ?? 'request',
        )
      }
      check((await activeOf(store, record)) === undefined, 'a refused request wrote something')
      await expectCode(
        check,
        store.create({ session: loose({ ...session(), activeOrganizationId: '' }) }),
        INVALID,
        'create with a blank active organization',
      )
    },
  ),
]
