import { setImmediate as tick } from 'node:timers/promises'
import { type MailOutboxStore, MemoryMailOutbox } from '@portcullis/core/mail'
import { describe, expect, it } from 'vitest'
import { mailOutboxSuite } from '../src/mail/index.js'
import { runSuite } from '../src/suite/suite.js'

function forwarding(inner: MemoryMailOutbox, override: Partial<MailOutboxStore> = {}): MailOutboxStore {
  return {
    enqueue: (entries) => inner.enqueue(entries),
    claim: (request) => inner.claim(request),
    complete: (ids) => inner.complete(ids),
    reschedule: (request) => inner.reschedule(request),
    fail: (request) => inner.fail(request),
    ...override,
  }
}

const broken: { name: string; make: (inner: MemoryMailOutbox) => MailOutboxStore; caught: string[] }[] = [
  {
    name: 'claims without a lease (every drain sees every due message)',
    make: (inner) =>
      forwarding(inner, {
        claim: async (request) => {
          const rows = inner.pending().filter((row) => row.nextAttemptAt.getTime() <= request.now.getTime())
          return rows.slice(0, request.limit)
        },
      }),
    caught: ['mail.outbox.lease', 'mail.outbox.claim-race'],
  },
  {
    name: 'reads due rows, awaits, then leases them (check-then-set)',
    make: (inner) =>
      forwarding(inner, {
        claim: async (request) => {
          const due = inner
            .pending()
            .filter((row) => row.nextAttemptAt.getTime() <= request.now.getTime())
            .slice(0, request.limit)
          await tick()
          const claimed = await inner.claim(request)
          return due.length > 0 ? due : claimed
        },
      }),
    caught: ['mail.outbox.claim-race'],
  },
  {
    name: 'answers newest first',
    make: (inner) =>
      forwarding(inner, { claim: async (request) => [...(await inner.claim(request))].reverse() }),
    caught: ['mail.outbox.order'],
  },
  {
    name: 'fail only reschedules far away',
    make: (inner) =>
      forwarding(inner, {
        fail: (request) =>
          inner.reschedule({
            id: request.id,
            error: request.error,
            nextAttemptAt: new Date(request.now.getTime() + 3_600_000),
          }),
      }),
    caught: ['mail.outbox.settle'],
  },
  {
    name: 'completes only the first of several ids',
    make: (inner) => forwarding(inner, { complete: (ids) => inner.complete(ids.slice(0, 1)) }),
    caught: ['mail.outbox.complete-many'],
  },
  {
    name: 'completes id by id (a bad id leaves the ones before it removed)',
    make: (inner) =>
      forwarding(inner, {
        complete: async (ids) => {
          for (const id of ids) await inner.complete([id])
        },
      }),
    caught: ['mail.outbox.complete-many'],
  },
  {
    name: 'writes a batch entry by entry (a duplicate leaves the others written)',
    make: (inner) =>
      forwarding(inner, {
        enqueue: async (entries) => {
          for (const entry of entries) await inner.enqueue([entry])
        },
      }),
    caught: ['mail.outbox.bad-input'],
  },
]

describe('the MailOutboxStore suite against deliberately broken outboxes', () => {
  for (const { name, make, caught } of broken) {
    it(`fails "${name}" naming ${caught.join(', ')}`, async () => {
      const results = await runSuite(
        mailOutboxSuite(() => {
          const store = make(new MemoryMailOutbox())
          return { store, peer: store }
        }),
      )
      const failed = results.filter((result) => !result.passed).map((result) => result.id)
      expect(failed).toEqual(expect.arrayContaining(caught))
    })
  }
})
