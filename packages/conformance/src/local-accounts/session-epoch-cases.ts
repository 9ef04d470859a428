import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { at, MINUTE, passwordHash, type SessionStoreFixture, T0, unique, username } from './fixture.js'
import { sameSession, session } from './session-cases.js'

type Case = ConformanceCase<SessionStoreFixture>

/** Cases of the optional `getWithAccountEpoch` (suite option `accountEpoch`). */
export const sessionEpochCases: readonly Case[] = [
  conformanceCase(
    'session.account-epoch',
    "getWithAccountEpoch answers a live session exactly, with its account's current epoch",
    async ({ store, accounts }, check) => {
      check(typeof store.getWithAccountEpoch === 'function', 'the store has no getWithAccountEpoch')
      check(accounts !== undefined, 'the fixture has no accounts store')
      if (typeof store.getWithAccountEpoch !== 'function' || accounts === undefined) return
      const accountId = unique('account')
      const created = await accounts.createAccount({
        accountId,
        username: username(),
        passwordHash: passwordHash(),
        now: T0,
      })
      check(created.outcome === 'created', 'the account was not created')
      const saved = session({ accountId })
      await store.create({ session: saved })
      const first = await store.getWithAccountEpoch(saved.digest, T0)
      check(sameSession(first?.session, saved), 'the session came back changed')
      check(first?.accountEpoch === 1, `epoch ${first?.accountEpoch}, expected 1`)
      await accounts.bumpSecurityEpoch({ accountId, now: T0 })
      const second = await store.getWithAccountEpoch(saved.digest, at(1))
      check(second?.accountEpoch === 2, `after a bump: epoch ${second?.accountEpoch}, expected 2`)
    },
  ),
  conformanceCase(
    'session.account-epoch-missing',
    'getWithAccountEpoch answers null for unknown and expired sessions, and a null epoch for a gone account',
    async ({ store }, check) => {
      check(typeof store.getWithAccountEpoch === 'function', 'the store has no getWithAccountEpoch')
      if (typeof store.getWithAccountEpoch !== 'function') return
      const orphan = session({ accountId: unique('gone') })
      await store.create({ session: orphan })
      const found = await store.getWithAccountEpoch(orphan.digest, T0)
      check(sameSession(found?.session, orphan), 'a session of a gone account was not answered')
      check(found?.accountEpoch === null, `a gone account's epoch was ${found?.accountEpoch}`)
      check(
        (await store.getWithAccountEpoch(orphan.digest, at(30 * MINUTE))) === null,
        'an idle-expired session was answered',
      )
      check(
        (await store.getWithAccountEpoch(session().digest, T0)) === null,
        'an unknown digest was answered',
      )
    },
  ),
]
