import type { OutboxEntry, OutboxRecord } from '@portcullis/core/mail'
import { rejectionCode } from '../oauth/fixture.js'
import { type Check, type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { caseEpoch, type MailOutboxFixture, outboxEntry } from './fixture.js'

type Case = ConformanceCase<MailOutboxFixture>

const later = (base: Date, ms: number) => new Date(base.getTime() + ms)
const ids = (rows: readonly { id: string }[]) => rows.map((row) => row.id)

async function expectCode(
  check: Check,
  promise: Promise<unknown>,
  code: string,
  what: string,
): Promise<void> {
  const actual = await rejectionCode(promise)
  check(actual === code, `${what}: expected ${code}, got ${actual ?? 'success'}`)
}

export const outboxCases: readonly Case[] = [
  conformanceCase(
    'mail.outbox.order',
    'a claim hands out due messages oldest first, at most `limit`, each with its kind, account, envelope and time as written, and nothing not yet due',
    async ({ store }, check) => {
      const t = caseEpoch()
      const [b, c, a] = [
        outboxEntry(later(t, 2000)),
        outboxEntry(later(t, 3000), null),
        outboxEntry(later(t, 1000)),
      ]
      const future = outboxEntry(later(t, 60_000))
      await store.enqueue([b as OutboxEntry, c as OutboxEntry])
      await store.enqueue([a as OutboxEntry, future])
      const first = await store.claim({ now: later(t, 10_000), limit: 2, leaseSeconds: 30 })
      check(
        JSON.stringify(ids(first)) === JSON.stringify([a?.id, b?.id]),
        `the first claim of two answered ${first.length} rows, not the two oldest in order`,
      )
      const rest = await store.claim({ now: later(t, 10_000), limit: 10, leaseSeconds: 30 })
      check(
        JSON.stringify(ids(rest)) === JSON.stringify([c?.id]),
        `the second claim answered ${rest.length} rows, not the third one alone`,
      )
      const got = rest[0] as OutboxRecord | undefined
      check(
        got !== undefined &&
          got.kind === c?.kind &&
          got.accountId === null &&
          got.envelope === c.envelope &&
          got.createdAt.getTime() === c.createdAt.getTime() &&
          got.attempts === 0 &&
          got.lastError === null,
        'a claimed row does not carry what was written',
      )
    },
  ),
  conformanceCase(
    'mail.outbox.lease',
    'a claimed message is hidden from every drain until its lease ends, then handed out again (a drain that died loses nothing)',
    async ({ store, peer = store }, check) => {
      const t = caseEpoch()
      const entry = outboxEntry(t)
      await store.enqueue([entry])
      const claimed = await store.claim({ now: later(t, 1000), limit: 5, leaseSeconds: 60 })
      check(claimed.length === 1, 'the due message was not claimed')
      const during = await peer.claim({ now: later(t, 60_999), limit: 5, leaseSeconds: 60 })
      check(during.length === 0, 'another drain claimed a message whose lease had not ended')
      const after = await peer.claim({ now: later(t, 61_000), limit: 5, leaseSeconds: 60 })
      check(
        after.length === 1 && after[0]?.id === entry.id && after[0].envelope === entry.envelope,
        'the message was not handed out again when its lease ended',
      )
    },
  ),
  conformanceCase(
    'mail.outbox.claim-race',
    'drains on two instances claiming at once never get the same message, and together get every one',
    async ({ store, peer = store }, check) => {
      const t = caseEpoch()
      const entries = Array.from({ length: 60 }, (_, n) => outboxEntry(later(t, n)))
      await store.enqueue(entries.slice(0, 16))
      await store.enqueue(entries.slice(16, 32))
      await store.enqueue(entries.slice(32, 48))
      await store.enqueue(entries.slice(48))
      const seen: string[] = []
      const drain = async (outbox: typeof store) => {
        for (let round = 0; round < 40; round++) {
          const rows = await outbox.claim({ now: later(t, 5000), limit: 3, leaseSeconds: 300 })
          if (rows.length === 0) return
          seen.push(...ids(rows))
        }
      }
      await Promise.all([drain(store), drain(peer), drain(store), drain(peer)])
      check(
        new Set(seen).size === seen.length,
        `${seen.length - new Set(seen).size} messages were claimed twice`,
      )
      check(seen.length === entries.length, `${seen.length} of ${entries.length} messages were claimed`)
    },
  ),
  conformanceCase(
    'mail.outbox.complete-many',
    'complete takes several ids in one call and removes exactly those (repeats and unknown ids are harmless); a bad id among good ones removes nothing',
    async ({ store }, check) => {
      const t = caseEpoch()
      const entries = Array.from({ length: 5 }, (_, n) => outboxEntry(later(t, n)))
      await store.enqueue(entries)
      const claimed = await store.claim({ now: later(t, 10), limit: 10, leaseSeconds: 1 })
      check(claimed.length === 5, `${claimed.length} of 5 were claimed`)
      const [a, b, c, d, e] = entries as [OutboxEntry, OutboxEntry, OutboxEntry, OutboxEntry, OutboxEntry]
      await expectCode(
        check,
        store.complete([b.id, 'not-a-uuid', d.id]),
        'mail.invalid_outbox_request',
        'complete with one bad id among good ones',
      )
      await store.complete([a.id, c.id, a.id, outboxEntry(t).id])
      await store.complete([])
      const left = await store.claim({ now: later(t, 60_000), limit: 10, leaseSeconds: 30 })
      check(
        JSON.stringify(ids(left)) === JSON.stringify([b.id, d.id, e.id]),
        `after completing two of five, a claim answered ${left.length} rows, not the other three in order`,
      )
      await store.complete(ids(left))
      const none = await store.claim({ now: later(t, 120_000), limit: 10, leaseSeconds: 30 })
      check(none.length === 0, `${none.length} rows were left after completing all`)
    },
  ),
  conformanceCase(
    'mail.outbox.settle',
    'complete removes a message; reschedule counts the attempt, keeps the error code and hides it until nextAttemptAt; fail removes it from the queue for good',
    async ({ store }, check) => {
      const t = caseEpoch()
      const [sent, retried, failed] = [outboxEntry(t), outboxEntry(later(t, 1)), outboxEntry(later(t, 2))]
      await store.enqueue([sent, retried, failed] as OutboxEntry[])
      check(
        (await store.claim({ now: later(t, 10), limit: 10, leaseSeconds: 30 })).length === 3,
        'not all three were claimed',
      )
      await store.complete([sent.id])
      await store.reschedule({
        id: retried.id,
        nextAttemptAt: later(t, 5 * 60_000),
        error: 'mail.unavailable',
      })
      await store.fail({ id: failed.id, error: 'mail.rejected', now: later(t, 20) })
      const early = await store.claim({ now: later(t, 5 * 60_000 - 1), limit: 10, leaseSeconds: 30 })
      check(
        early.length === 0,
        `${early.length} rows were claimed before the rescheduled time (a completed or failed one?)`,
      )
      const due = await store.claim({ now: later(t, 5 * 60_000), limit: 10, leaseSeconds: 30 })
      check(
        due.length === 1 &&
          due[0]?.id === retried.id &&
          due[0].attempts === 1 &&
          due[0].lastError === 'mail.unavailable',
        'the rescheduled message did not come back with one attempt and its error code',
      )
      // Settling a completed or failed message again changes nothing.
      await store.reschedule({ id: failed.id, nextAttemptAt: later(t, 1), error: 'mail.unavailable' })
      await store.reschedule({ id: sent.id, nextAttemptAt: later(t, 1), error: 'mail.unavailable' })
      const much = await store.claim({ now: later(t, 86_400_000), limit: 10, leaseSeconds: 30 })
      check(
        JSON.stringify(ids(much)) === JSON.stringify([retried.id]),
        'a completed or failed message came back into the queue',
      )
    },
  ),
  conformanceCase(
    'mail.outbox.bad-input',
    'malformed entries and requests are typed errors; a batch with a bad or duplicate entry writes none of its entries',
    async ({ store }, check) => {
      const t = caseEpoch()
      const good = outboxEntry(t)
      for (const [what, bad] of [
        ['an id that is not a UUID', { ...good, id: 'message-1' }],
        ['an upper-case UUID', { ...good, id: good.id.toUpperCase() }],
        ['an unknown kind', { ...good, kind: 'newsletter' }],
        ['an envelope with a line break', { ...good, envelope: 'pe1.k1.AAAA\nBcc: x' }],
        ['an account id with a NUL', { ...good, accountId: 'a\u0000b' }],
        ['no createdAt', { ...good, createdAt: undefined }],
      ] as const) {
        await expectCode(
          check,
          store.enqueue([good, bad as unknown as OutboxEntry]),
          'mail.invalid_outbox_entry',
          what,
        )
      }
      await expectCode(
        check,
        store.enqueue([good, good]),
        'mail.duplicate_outbox_entry',
        'one id twice in a batch',
      )
      check(
        (await store.claim({ now: later(t, 1000), limit: 10, leaseSeconds: 30 })).length === 0,
        'a refused batch wrote an entry',
      )
      await store.enqueue([good])
      const fresh = outboxEntry(t)
      await expectCode(
        check,
        store.enqueue([fresh, good]),
        'mail.duplicate_outbox_entry',
        'an id the outbox holds',
      )
      const held = await store.claim({ now: later(t, 1000), limit: 10, leaseSeconds: 30 })
      check(
        JSON.stringify(ids(held)) === JSON.stringify([good.id]),
        'the batch with a stored id wrote its other entry',
      )
      const now = later(t, 1000)
      for (const [what, request] of [
        ['limit 0', { now, limit: 0, leaseSeconds: 30 }],
        ['a fractional limit', { now, limit: 1.5, leaseSeconds: 30 }],
        ['a lease of 0 s', { now, limit: 1, leaseSeconds: 0 }],
        ['an invalid now', { now: new Date(Number.NaN), limit: 1, leaseSeconds: 30 }],
      ] as const) {
        await expectCode(check, store.claim(request), 'mail.invalid_outbox_request', `claim with ${what}`)
      }
      await expectCode(
        check,
        store.reschedule({
          id: good.id,
          nextAttemptAt: now,
          error: 'Connection refused to smtp.example: 550 user@example.com',
        }),
        'mail.invalid_outbox_request',
        'an error that is free text (it could carry an address or a body)',
      )
      await expectCode(
        check,
        store.complete(['not-a-uuid']),
        'mail.invalid_outbox_request',
        'complete with a bad id',
      )
      await expectCode(
        check,
        store.fail({ id: good.id, error: 'mail.rejected', now: new Date('nope') }),
        'mail.invalid_outbox_request',
        'fail with an invalid now',
      )
    },
  ),
]
