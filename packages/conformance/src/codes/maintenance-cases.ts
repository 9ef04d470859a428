import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  at,
  codeOf,
  DROPPED,
  distantPast,
  newCode,
  type OneTimeCodeStoreFixture,
  outboxEntry,
  present,
  ROTATED,
  T0,
} from './fixture.js'

type Case = ConformanceCase<OneTimeCodeStoreFixture>

const INVALID = 'codes.invalid_input'

export const codeMaintenanceCases: readonly Case[] = [
  conformanceCase(
    'codes.sweep-bounded',
    'sweep deletes at most `limit` codes expiring at or before now per call, and never a live one',
    async ({ store, createAccount }, check) => {
      const base = distantPast()
      const accountId = await createAccount()
      const expired = Array.from({ length: 5 }, (_, index) =>
        newCode(index % 2 === 0 ? accountId : null, {
          createdAt: at(-60_000, base),
          expiresAt: at(-index * 1000, base),
        }),
      )
      const live = newCode(null, { createdAt: at(-60_000, base), expiresAt: at(1, base) })
      for (const code of [...expired, live]) await store.issue({ code, supersede: false })
      const first = await store.sweep({ now: base, limit: 2 })
      check(first === 2, `a sweep limited to 2 removed ${first}`)
      let rest = 0
      for (let round = 0; round < 10; round += 1) {
        const removed = await store.sweep({ now: base, limit: 2 })
        check(removed <= 2, `a sweep limited to 2 removed ${removed}`)
        if (removed === 0) break
        rest += removed
      }
      check(rest === 3, `later sweeps removed ${rest} instead of the 3 left`)
      for (const code of expired) {
        const answer = await store.consume(present(code, { now: at(-120_000, base) }))
        check(answer.outcome === 'not-found', `a swept code answered ${answer.outcome}`)
      }
      const kept = await store.consume(present(live, { now: at(-120_000, base) }))
      check(kept.outcome === 'consumed', `the live code answered ${kept.outcome}`)
    },
  ),
  conformanceCase(
    'codes.key-rotation',
    'a code digested under a retained key version still works after rotation, and fails once it is dropped',
    async ({ store, createAccount }, check) => {
      const accountId = await createAccount()
      const before = newCode(accountId)
      const dropped = newCode(accountId, { purpose: 'sign-in' })
      const after = newCode(accountId, { purpose: 'email-verification', ring: ROTATED })
      for (const code of [before, dropped, after]) await store.issue({ code })
      check(after.keyVersion === 2, 'the rotated ring did not issue under version 2')
      const retained = await store.consume(present(before, { ring: ROTATED }))
      check(retained.outcome === 'consumed', `a retained-version code answered ${retained.outcome}`)
      const gone = await store.consume(present(dropped, { ring: DROPPED }))
      check(gone.outcome === 'mismatch', `a dropped-version code answered ${gone.outcome}`)
      check(
        (await store.consume(present(after, { ring: ROTATED }))).outcome === 'consumed',
        'a new code failed',
      )
    },
  ),
  conformanceCase(
    'codes.invalid-input',
    'malformed requests are codes.invalid_input errors and write, consume or delete nothing',
    async ({ store, createAccount }, check) => {
      const accountId = await createAccount()
      const good = newCode(accountId)
      const bad: Record<string, unknown>[] = [
        { id: 'short' },
        { id: `${good.id}!` },
        { purpose: 'admin' },
        { accountId: '' },
        { accountId: ' padded ' },
        { address: '' },
        { address: 'a@example.com\r\nBcc: b@example.com' },
        { digest: 'not-a-digest' },
        { digest: `${good.digest}A` },
        { keyVersion: -1 },
        { keyVersion: 1.5 },
        { maxAttempts: 0 },
        { maxAttempts: 101 },
        { createdAt: new Date(Number.NaN) },
        { expiresAt: T0 },
        { expiresAt: at(32 * 86_400_000) },
        { payload: 42 },
      ]
      for (const fields of bad) {
        const answer = await codeOf(store.issue({ code: { ...good, ...fields } as never }))
        check(answer === INVALID, `issue with ${Object.keys(fields).join()} answered ${answer}`)
      }
      const badOutbox = await codeOf(
        store.issue({ code: good, outbox: [{ ...outboxEntry(accountId), id: 'x' }] }),
      )
      check(badOutbox === 'mail.invalid_outbox_entry', `a malformed outbox entry answered ${badOutbox}`)
      const consumes: Record<string, unknown>[] = [
        { id: 'short' },
        { purpose: 'admin' },
        { candidates: [] },
        { candidates: [{ keyVersion: 1, digest: 'x' }] },
        { candidates: [...present(good).candidates, ...present(good).candidates] },
        { now: new Date(Number.NaN) },
      ]
      for (const fields of consumes) {
        const answer = await codeOf(store.consume({ ...present(good), ...fields } as never))
        check(answer === INVALID, `consume with ${Object.keys(fields).join()} answered ${answer}`)
      }
      for (const request of [
        { accountId: '' },
        { accountId, purposes: [] },
        { accountId, purposes: ['admin'] },
      ]) {
        const answer = await codeOf(store.revoke(request as never))
        check(answer === INVALID, `revoke ${JSON.stringify(request)} answered ${answer}`)
      }
      for (const request of [
        { now: T0, limit: 0 },
        { now: T0, limit: 10_001 },
        { now: 'today', limit: 5 },
      ]) {
        const answer = await codeOf(store.sweep(request as never))
        check(answer === INVALID, `sweep ${JSON.stringify(request)} answered ${answer}`)
      }
      // Nothing was written by the refused issues: the id is free and the code is consumed once.
      await store.issue({ code: good })
      check((await store.consume(present(good))).outcome === 'consumed', 'the valid code did not work')
    },
  ),
  conformanceCase(
    'codes.duplicate-id',
    'issuing a second code under a stored flow id is codes.duplicate and leaves the first intact',
    async ({ store, createAccount }, check) => {
      const first = newCode(await createAccount())
      await store.issue({ code: first })
      const second = newCode(await createAccount(), { id: first.id, plain: '111111' })
      const answer = await codeOf(store.issue({ code: second }))
      check(answer === 'codes.duplicate', `the second issue answered ${answer}`)
      // The same account and purpose: superseding must not make room for the duplicate.
      const same = newCode(first.accountId, { id: first.id, plain: '222222' })
      const again = await codeOf(store.issue({ code: same }))
      check(again === 'codes.duplicate', `a duplicate that would supersede answered ${again}`)
      check(
        (await store.consume(present(first))).outcome === 'consumed',
        'the duplicate replaced the first code',
      )
    },
  ),
  conformanceCase(
    'codes.outbox-with-issue',
    'issue writes its outbox entries with the code; an issue that fails writes neither',
    async ({ store, createAccount, storedOutboxIds }, check) => {
      if (storedOutboxIds === undefined) return
      const accountId = await createAccount()
      const code = newCode(accountId)
      const mails = [outboxEntry(accountId), outboxEntry(accountId)]
      await store.issue({ code, outbox: mails })
      const stored = await storedOutboxIds(mails.map((mail) => mail.id))
      check(stored.length === 2, `${stored.length} of 2 outbox entries were written`)
      const refused = outboxEntry(accountId)
      const answer = await codeOf(
        store.issue({ code: newCode(accountId, { id: code.id }), outbox: [refused] }),
      )
      check(answer === 'codes.duplicate', `a duplicate issue answered ${answer}`)
      check((await storedOutboxIds([refused.id])).length === 0, 'a failed issue wrote its outbox entry')
      const reused = newCode(accountId, { purpose: 'sign-in' })
      const clash = await codeOf(store.issue({ code: reused, outbox: [mails[0] ?? refused] }))
      check(clash !== 'resolved', 'an outbox entry id was written twice')
      check(
        (await store.consume(present(reused))).outcome === 'not-found',
        'a refused outbox write kept its code',
      )
      check((await store.consume(present(code))).outcome === 'consumed', 'the first code was disturbed')
    },
  ),
  conformanceCase(
    'codes.account-deletion',
    "deleting an account deletes its codes and no one else's",
    async ({ store, createAccount, deleteAccount }, check) => {
      if (deleteAccount === undefined) return
      const [accountId, otherAccount] = [await createAccount(), await createAccount()]
      const mine = newCode(accountId)
      const theirs = newCode(otherAccount)
      const unowned = newCode(null, { address: mine.address })
      for (const code of [mine, theirs, unowned]) await store.issue({ code })
      await deleteAccount(accountId)
      check((await store.consume(present(mine))).outcome === 'not-found', "a deleted account's code works")
      check((await store.consume(present(theirs))).outcome === 'consumed', "another account's code went")
      check((await store.consume(present(unowned))).outcome === 'consumed', 'a code without account went')
    },
  ),
]
