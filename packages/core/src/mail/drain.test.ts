import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { AESGCMOAuthTransactionProtector } from '../protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../protection/key.js'
import { defaultMailTemplates } from './default-templates.js'
import { MailOutboxDrain } from './drain.js'
import { type MailOutboxDrainEvent, retryDelayMs } from './drain-options.js'
import { MailError, MailErrorCodes } from './errors.js'
import { type Mailer, MemoryMailer } from './mailer.js'
import { MemoryMailOutbox } from './memory-outbox.js'
import type { MailMessage } from './messages.js'
import type { MailOutboxStore } from './outbox.js'
import { sealOutboxMessage } from './outbox-seal.js'
import { MailRenderer } from './templates.js'

const T0 = new Date('2026-03-01T10:00:00Z')
/** A minute after the messages were written: all of them are due. */
const LATER = new Date(T0.getTime() + 60_000)
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
})

function reset(n: number): MailMessage {
  return {
    kind: 'password-reset',
    to: { address: `person${n}@example.com`, name: `Person ${n}` },
    locale: 'en',
    code: `9${String(n).padStart(5, '0')}`,
    link: `https://app.example/reset?flow=f${n}#code=9${String(n).padStart(5, '0')}`,
    validForMinutes: 60,
  }
}

function memoryMailer(): MemoryMailer {
  return new MemoryMailer(new MailRenderer({ templates: defaultMailTemplates, appName: 'Example' }))
}

async function filled(count: number, at = T0): Promise<MemoryMailOutbox> {
  const outbox = new MemoryMailOutbox()
  for (let n = 0; n < count; n++) {
    await outbox.enqueue([
      await sealOutboxMessage(protector, reset(n), { now: new Date(at.getTime() + n), accountId: `a${n}` }),
    ])
  }
  return outbox
}

/** A mailer that throws `error` for its first `times` sends, then delegates. */
function flaky(inner: Mailer, error: () => unknown, times: number): Mailer & { calls: number } {
  const mailer = {
    calls: 0,
    async send(...args: Parameters<Mailer['send']>) {
      mailer.calls += 1
      if (mailer.calls <= times) throw error()
      return inner.send(...args)
    },
  }
  return mailer
}

describe('MailOutboxDrain.drainOnce', () => {
  it('sends every due message once, oldest first, keyed by its row id, and empties the outbox', async () => {
    const outbox = await filled(5)
    const mailer = memoryMailer()
    const ids = outbox.pending().map((row) => row.id)
    const drain = new MailOutboxDrain({ store: outbox, mailer, protector, clock: () => LATER })
    const report = await drain.drainOnce()
    expect(report).toEqual({ claimed: 5, sent: 5, rescheduled: 0, failed: 0, unrecorded: 0 })
    expect(mailer.sent.map((mail) => mail.message.to.address)).toEqual(
      [0, 1, 2, 3, 4].map((n) => `person${n}@example.com`),
    )
    expect(mailer.sent[0]?.text).toContain('900000')
    expect(mailer.sent.map((mail) => mail.messageId)).toEqual(ids.map((id) => `<${id}@portcullis.invalid>`))
    expect(outbox.pending()).toEqual([])
    expect(await drain.drainOnce()).toMatchObject({ claimed: 0 })
  })

  it('reschedules a retryable failure with exponential backoff, then delivers it when it is due', async () => {
    const outbox = await filled(1)
    const inner = memoryMailer()
    const mailer = flaky(inner, () => new MailError(MailErrorCodes.unavailable, 'down'), 3)
    let now = LATER
    const events: MailOutboxDrainEvent[] = []
    const drain = new MailOutboxDrain({
      store: outbox,
      mailer,
      protector,
      clock: () => now,
      random: () => 0,
      backoff: { initialMs: 1000, factor: 2, maxMs: 3000 },
      onEvent: (event) => events.push(event),
    })
    const due: number[] = []
    for (let round = 0; round < 3; round++) {
      expect(await drain.drainOnce()).toMatchObject({ claimed: 1, rescheduled: 1 })
      const [row] = outbox.pending()
      due.push((row?.nextAttemptAt.getTime() ?? 0) - now.getTime())
      expect(row?.attempts).toBe(round + 1)
      expect(row?.lastError).toBe('mail.unavailable')
      // Not due yet: nothing is claimed a millisecond early.
      if (row === undefined) throw new Error('the row is gone')
      now = new Date(row.nextAttemptAt.getTime() - 1)
      expect(await drain.drainOnce()).toMatchObject({ claimed: 0 })
      now = row.nextAttemptAt
    }
    expect(due).toEqual([1000, 2000, 3000])
    expect(await drain.drainOnce()).toMatchObject({ claimed: 1, sent: 1 })
    expect(inner.sent).toHaveLength(1)
    expect(events.map((event) => event.type)).toEqual([
      'mail.retry_scheduled',
      'mail.retry_scheduled',
      'mail.retry_scheduled',
      'mail.sent',
    ])
    expect(events.at(-1)).toMatchObject({ attempts: 4 })
  })

  it('fails a permanent MailError at once and keeps the row without its envelope', async () => {
    const outbox = await filled(1)
    const mailer = flaky(memoryMailer(), () => new MailError(MailErrorCodes.rejected, 'no such user'), 1)
    const drain = new MailOutboxDrain({ store: outbox, mailer, protector, clock: () => LATER })
    expect(await drain.drainOnce()).toMatchObject({ failed: 1 })
    expect(outbox.pending()).toEqual([])
    const [failed] = outbox.failed()
    expect(failed).toMatchObject({
      kind: 'password-reset',
      accountId: 'a0',
      attempts: 1,
      lastError: 'mail.rejected',
    })
    expect(failed).not.toHaveProperty('envelope')
  })

  it('gives up after maxAttempts and on messages older than maxAgeMs', async () => {
    const outbox = await filled(1)
    const mailer = flaky(memoryMailer(), () => new Error('socket hang up'), 100)
    let now = LATER
    const drain = new MailOutboxDrain({ store: outbox, mailer, protector, clock: () => now, maxAttempts: 2 })
    expect(await drain.drainOnce()).toMatchObject({ rescheduled: 1 })
    expect(outbox.pending()[0]?.lastError).toBe('mail.send_error')
    now = new Date(T0.getTime() + 3_600_000)
    expect(await drain.drainOnce()).toMatchObject({ failed: 1 })
    expect(outbox.failed()[0]).toMatchObject({ lastError: 'mail.attempts_exhausted', attempts: 2 })

    const old = await filled(1)
    const sender = memoryMailer()
    const late = new MailOutboxDrain({
      store: old,
      mailer: sender,
      protector,
      clock: () => new Date(T0.getTime() + 86_400_001),
      maxAgeMs: 86_400_000,
    })
    expect(await late.drainOnce()).toMatchObject({ failed: 1 })
    expect(sender.sent).toEqual([])
    expect(old.failed()[0]?.lastError).toBe('mail.expired')
  })

  it('fails a row whose envelope was tampered with or moved to another row, and sends nothing', async () => {
    const outbox = new MemoryMailOutbox()
    const a = await sealOutboxMessage(protector, reset(1), { now: T0, accountId: 'a1' })
    const b = await sealOutboxMessage(protector, reset(2), { now: T0, accountId: 'a2' })
    const flipped = `${a.envelope.slice(0, -2)}${a.envelope.at(-2) === 'A' ? 'B' : 'A'}${a.envelope.at(-1)}`
    await outbox.enqueue([
      { ...a, envelope: flipped },
      { ...b, envelope: a.envelope },
      { ...a, id: '00000000-0000-4000-8000-000000000001', accountId: 'someone-else' },
    ])
    const mailer = memoryMailer()
    const drain = new MailOutboxDrain({ store: outbox, mailer, protector, clock: () => LATER })
    expect(await drain.drainOnce()).toMatchObject({ claimed: 3, failed: 3 })
    expect(mailer.sent).toEqual([])
    expect(outbox.failed().map((row) => row.lastError)).toEqual(Array(3).fill('protection.envelope_rejected'))
  })

  it('never puts a recipient, a code, a link or a body in its events', async () => {
    const outbox = await filled(3)
    const events: MailOutboxDrainEvent[] = []
    let calls = 0
    const mailer: Mailer = {
      async send() {
        calls += 1
        if (calls === 1) throw new MailError(MailErrorCodes.unavailable, 'down')
        if (calls === 2) throw new MailError(MailErrorCodes.rejected, 'rejected')
        return { messageId: '<x@example>' }
      },
    }
    const drain = new MailOutboxDrain({
      store: outbox,
      mailer,
      protector,
      clock: () => LATER,
      onEvent: (e) => events.push(e),
    })
    await drain.drainOnce()
    expect(events.map((event) => event.type).sort()).toEqual([
      'mail.failed',
      'mail.retry_scheduled',
      'mail.sent',
    ])
    const text = JSON.stringify(events)
    for (const secret of ['@example.com', 'Person', '90000', 'https://', 'reset?flow'])
      expect(text).not.toContain(secret)
  })

  it('keeps at most `concurrency` sends in flight', async () => {
    const outbox = await filled(20)
    let inFlight = 0
    let peak = 0
    const mailer: Mailer = {
      async send() {
        inFlight += 1
        peak = Math.max(peak, inFlight)
        await new Promise((resolve) => setTimeout(resolve, 5))
        inFlight -= 1
        return { messageId: '<x@example>' }
      },
    }
    const drain = new MailOutboxDrain({
      store: outbox,
      mailer,
      protector,
      clock: () => LATER,
      concurrency: 3,
      batchSize: 20,
    })
    expect(await drain.drainOnce()).toMatchObject({ sent: 20 })
    expect(peak).toBe(3)
  })

  it('completes the messages a round sent in one write, without the ones that failed or wait for a retry', async () => {
    const outbox = await filled(6)
    const ids = outbox.pending().map((row) => row.id)
    const writes: (readonly string[])[] = []
    const counting: MailOutboxStore = {
      enqueue: (entries) => outbox.enqueue(entries),
      claim: (request) => outbox.claim(request),
      complete: async (completed) => {
        writes.push([...completed])
        return outbox.complete(completed)
      },
      reschedule: (request) => outbox.reschedule(request),
      fail: (request) => outbox.fail(request),
    }
    let calls = 0
    const inner = memoryMailer()
    const mailer: Mailer = {
      async send(message, options) {
        calls += 1
        if (calls === 2) throw new MailError(MailErrorCodes.unavailable, 'busy')
        if (calls === 4) throw new MailError(MailErrorCodes.rejected, 'no such mailbox')
        return inner.send(message, options)
      },
    }
    const drain = new MailOutboxDrain({
      store: counting,
      mailer,
      protector,
      clock: () => LATER,
      concurrency: 1,
    })
    expect(await drain.drainOnce()).toEqual({ claimed: 6, sent: 4, rescheduled: 1, failed: 1, unrecorded: 0 })
    expect(writes).toEqual([[ids[0], ids[2], ids[4], ids[5]]])
    expect(outbox.pending().map((row) => row.id)).toEqual([ids[1]])
  })

  it('reports an outcome it could not write as unrecorded; the lease hands the row out again', async () => {
    const outbox = await filled(1)
    const events: MailOutboxDrainEvent[] = []
    const broken: MailOutboxStore = {
      enqueue: (entries) => outbox.enqueue(entries),
      claim: (request) => outbox.claim(request),
      complete: async () => {
        throw new MailError(MailErrorCodes.unavailable, 'store down')
      },
      reschedule: (request) => outbox.reschedule(request),
      fail: (request) => outbox.fail(request),
    }
    const mailer = memoryMailer()
    const drain = new MailOutboxDrain({
      store: broken,
      mailer,
      protector,
      clock: () => LATER,
      leaseSeconds: 30,
      onEvent: (e) => events.push(e),
    })
    expect(await drain.drainOnce()).toMatchObject({ sent: 0, unrecorded: 1 })
    expect(events.at(-1)).toEqual({
      type: 'mail.outbox_unavailable',
      operation: 'complete',
      code: 'mail.unavailable',
    })
    expect(
      await outbox.claim({ now: new Date(LATER.getTime() + 29_999), limit: 5, leaseSeconds: 30 }),
    ).toEqual([])
    expect(
      await outbox.claim({ now: new Date(LATER.getTime() + 30_000), limit: 5, leaseSeconds: 30 }),
    ).toHaveLength(1)
  })

  it('refuses unknown and out-of-range options', () => {
    const base = { store: new MemoryMailOutbox(), mailer: memoryMailer(), protector }
    expect(() => new MailOutboxDrain({ ...base, batchsize: 5 } as never)).toThrow(
      expect.objectContaining({ code: 'configuration.unknown_option' }),
    )
    expect(() => new MailOutboxDrain({ ...base, concurrency: 0 })).toThrow(
      expect.objectContaining({ code: 'configuration.invalid_option' }),
    )
    expect(() => new MailOutboxDrain({ ...base, backoff: { jitter: 2 } })).toThrow(
      expect.objectContaining({ code: 'configuration.invalid_option' }),
    )
  })
})

describe('the retry delay', () => {
  it('grows exponentially, stops at the cap, and jitter only shortens it', () => {
    const backoff = { initialMs: 100, factor: 3, maxMs: 1000, jitter: 0.5 }
    expect([1, 2, 3, 4, 10].map((n) => retryDelayMs(backoff, n, () => 0))).toEqual([
      100, 300, 900, 1000, 1000,
    ])
    expect(retryDelayMs(backoff, 2, () => 0.999999)).toBe(150)
    for (let i = 0; i < 200; i++) {
      const delay = retryDelayMs(backoff, 3, Math.random)
      expect(delay).toBeGreaterThanOrEqual(450)
      expect(delay).toBeLessThanOrEqual(900)
    }
  })
})

describe('MailOutboxDrain loop', () => {
  it('sends promptly on wake, runs full batches back to back, and stop waits for the round in flight', async () => {
    const outbox = new MemoryMailOutbox()
    const mailer = memoryMailer()
    const drain = new MailOutboxDrain({
      store: outbox,
      mailer,
      protector,
      batchSize: 2,
      pollIntervalMs: 60_000,
    })
    drain.start()
    await new Promise((resolve) => setTimeout(resolve, 20))
    for (let n = 0; n < 5; n++) {
      await outbox.enqueue([
        await sealOutboxMessage(protector, reset(n), { now: new Date(), accountId: null }),
      ])
    }
    const woken = Date.now()
    drain.wake()
    while (mailer.sent.length < 5 && Date.now() - woken < 2000)
      await new Promise((resolve) => setTimeout(resolve, 5))
    // Five messages in batches of two took three rounds without waiting for the 60 s poll.
    expect(mailer.sent).toHaveLength(5)
    await drain.stop()
    await outbox.enqueue([await sealOutboxMessage(protector, reset(9), { now: new Date(), accountId: null })])
    drain.wake()
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(mailer.sent).toHaveLength(5)
    expect(outbox.pending()).toHaveLength(1)
  })

  it('keeps running when a claim fails, and says so', async () => {
    const events: MailOutboxDrainEvent[] = []
    let claims = 0
    const inner = await filled(1, new Date(Date.now() - 1000))
    const store: MailOutboxStore = {
      ...inner,
      enqueue: (e) => inner.enqueue(e),
      complete: (ids) => inner.complete(ids),
      reschedule: (r) => inner.reschedule(r),
      fail: (r) => inner.fail(r),
      claim: async (request) => {
        claims += 1
        if (claims === 1) throw new MailError(MailErrorCodes.unavailable, 'database down')
        return inner.claim(request)
      },
    }
    const mailer = memoryMailer()
    const drain = new MailOutboxDrain({
      store,
      mailer,
      protector,
      pollIntervalMs: 10,
      onEvent: (e) => events.push(e),
    })
    drain.start()
    const started = Date.now()
    while (mailer.sent.length < 1 && Date.now() - started < 2000)
      await new Promise((resolve) => setTimeout(resolve, 5))
    await drain.stop()
    expect(mailer.sent).toHaveLength(1)
    expect(events[0]).toEqual({
      type: 'mail.outbox_unavailable',
      operation: 'claim',
      code: 'mail.unavailable',
    })
  })
})
