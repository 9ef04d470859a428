import { describe, expect, it } from 'vitest'
import { emitSecurityEvent } from '../local-accounts/security-events.js'
import type { SecurityLogEntry } from './entry.js'
import { SecurityLogError } from './errors.js'
import { MemorySecurityLog } from './memory.js'
import type { SecurityLog } from './port.js'
import { SecurityLogWriter, type SecurityLogWriterReport } from './writer.js'

const event = (n: number) =>
  ({
    type: 'login.failed',
    at: new Date(1_800_000_000_000 + n),
    accountId: 'acct',
    reason: 'bad_password',
  }) as const

/** A log that fails while `down` is true, and can commit a batch and then fail (a reply lost mid-batch). */
class FlakyLog implements SecurityLog {
  readonly inner = new MemorySecurityLog()
  down = false
  commitThenFail = 0
  appends = 0
  async append(entries: readonly SecurityLogEntry[]): Promise<void> {
    this.appends += 1
    if (this.down) throw new Error('connection refused')
    await this.inner.append(entries)
    if (this.commitThenFail > 0) {
      this.commitThenFail -= 1
      throw new Error('connection reset after commit')
    }
  }
  listForAccount = this.inner.listForAccount.bind(this.inner)
  listByType = this.inner.listByType.bind(this.inner)
  sweep = this.inner.sweep.bind(this.inner)
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s')
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

async function all(log: SecurityLog, accountId = 'acct'): Promise<SecurityLogEntry[]> {
  const found: SecurityLogEntry[] = []
  let cursor: string | undefined
  do {
    const page = await log.listForAccount({ accountId, limit: 200, cursor })
    found.push(...page.entries)
    cursor = page.nextCursor ?? undefined
  } while (cursor !== undefined)
  return found
}

describe('SecurityLogWriter', () => {
  it('returns to the caller before anything is written, then writes in batches', async () => {
    const log = new FlakyLog()
    const writer = new SecurityLogWriter({ log, batchSize: 50, flushDelayMs: 5 })
    for (let n = 0; n < 120; n += 1) writer.sink(event(n))
    expect(log.appends).toBe(0)
    expect(writer.stats().queued).toBe(120)
    expect(await writer.flush()).toBe(true)
    expect(log.appends).toBe(3)
    expect(writer.stats()).toMatchObject({ accepted: 120, written: 120, queued: 0, batches: 3, dropped: 0 })
    expect((await all(log)).length).toBe(120)
  })

  it('works as the sink of emitSecurityEvent, which never waits on it', async () => {
    const log = new MemorySecurityLog()
    const writer = new SecurityLogWriter({ log })
    emitSecurityEvent(writer.sink, event(1))
    expect(log.size).toBe(0)
    await writer.flush()
    expect(log.size).toBe(1)
  })

  it('counts, reports and records a burst that outruns the queue, never dropping it silently', async () => {
    const log = new FlakyLog()
    const reports: SecurityLogWriterReport[] = []
    const writer = new SecurityLogWriter({
      log,
      maxQueue: 100,
      flushDelayMs: 1000,
      onReport: (r) => reports.push(r),
    })
    for (let n = 0; n < 130; n += 1) writer.record(event(n))
    expect(writer.stats()).toMatchObject({ accepted: 100, dropped: 30, queued: 100 })
    expect(reports.filter((r) => r.kind === 'dropped')).toHaveLength(30)
    expect(reports.at(-1)).toEqual({ kind: 'dropped', dropped: 1, total: 30 })
    await writer.flush()
    const markers = await log.listByType({
      type: 'security_log.dropped',
      since: new Date(0),
      until: new Date(8.64e15),
      limit: 10,
    })
    expect(markers.entries.map((entry) => entry.details.dropped)).toEqual([30])
    expect((await all(log)).length).toBe(100)
    expect(writer.stats().written).toBe(101)
  })

  it('retries a batch while the log is down, losing nothing, and reports the failures and the recovery', async () => {
    const log = new FlakyLog()
    const reports: SecurityLogWriterReport[] = []
    const writer = new SecurityLogWriter({
      log,
      retryDelayMs: 5,
      flushDelayMs: 0,
      onReport: (r) => reports.push(r),
    })
    log.down = true
    for (let n = 0; n < 10; n += 1) writer.record(event(n))
    await until(() => writer.stats().failedWrites >= 2)
    expect(writer.stats().written).toBe(0)
    expect(writer.stats().lastErrorCode).toBe('unknown')
    expect(reports[0]).toMatchObject({ kind: 'write_failed', attempt: 1, queued: 10, retryInMs: 5 })
    expect(reports[1]).toMatchObject({ kind: 'write_failed', attempt: 2, retryInMs: 10 })
    log.down = false
    expect(await writer.flush()).toBe(true)
    expect((await all(log)).length).toBe(10)
    expect(reports.at(-1)).toMatchObject({ kind: 'recovered' })
  })

  it('stores a batch once when its commit succeeded but the reply was lost (same ids on retry)', async () => {
    const log = new FlakyLog()
    log.commitThenFail = 1
    const writer = new SecurityLogWriter({ log, retryDelayMs: 1, flushDelayMs: 0 })
    for (let n = 0; n < 25; n += 1) writer.record(event(n))
    expect(await writer.flush()).toBe(true)
    expect(log.appends).toBe(2)
    const stored = await all(log)
    expect(stored.length).toBe(25)
    expect(new Set(stored.map((entry) => entry.id)).size).toBe(25)
  })

  it('on close writes what is queued, then counts later events as dropped', async () => {
    const log = new MemorySecurityLog()
    const writer = new SecurityLogWriter({ log, flushDelayMs: 10_000 })
    writer.record(event(1))
    const stats = await writer.close()
    expect(stats).toMatchObject({ written: 1, queued: 0 })
    writer.record(event(2))
    expect(writer.stats().dropped).toBe(1)
  })

  it('on close with the log down reports what stays unwritten', async () => {
    const log = new FlakyLog()
    log.down = true
    const reports: SecurityLogWriterReport[] = []
    const writer = new SecurityLogWriter({ log, retryDelayMs: 5, onReport: (r) => reports.push(r) })
    writer.record(event(1))
    writer.record(event(2))
    const stats = await writer.close(50)
    expect(stats.queued).toBe(2)
    expect(reports).toContainEqual({ kind: 'unwritten', unwritten: 2 })
  })

  it('counts an event that cannot be an entry as rejected, and keeps going', async () => {
    const log = new MemorySecurityLog()
    const reports: SecurityLogWriterReport[] = []
    const writer = new SecurityLogWriter({ log, onReport: (r) => reports.push(r) })
    writer.record({ type: 'not a type', at: new Date() })
    writer.record({ type: 'login.failed', at: new Date(Number.NaN) })
    writer.record(event(1))
    await writer.flush()
    expect(writer.stats()).toMatchObject({ rejected: 2, written: 1 })
    expect(reports.filter((r) => r.kind === 'rejected')).toEqual([
      { kind: 'rejected', count: 1, code: 'security_log.invalid_input' },
      { kind: 'rejected', count: 1, code: 'security_log.invalid_input' },
    ])
  })

  it('a throwing report handler changes nothing', async () => {
    const log = new MemorySecurityLog()
    const writer = new SecurityLogWriter({
      log,
      maxQueue: 1,
      onReport: () => {
        throw new Error('handler bug')
      },
    })
    writer.record(event(1))
    expect(() => writer.record(event(2))).not.toThrow()
    await writer.flush()
    expect(writer.stats()).toMatchObject({ written: 2, dropped: 1 })
  })

  it('refuses bad options with security_log.invalid_config', () => {
    const log = new MemorySecurityLog()
    for (const options of [
      { maxQueue: 0 },
      { batchSize: 1001 },
      { flushDelayMs: -1 },
      { retryDelayMs: 1.5 },
    ]) {
      expect(() => new SecurityLogWriter({ log, ...options })).toThrow(SecurityLogError)
    }
    expect(() => new SecurityLogWriter({} as never)).toThrow(
      expect.objectContaining({ code: 'security_log.invalid_config' }),
    )
  })

  it('builds an entry for a same-transaction write without queueing it', () => {
    const writer = new SecurityLogWriter({ log: new MemorySecurityLog() })
    const entry = writer.entryFor(event(1))
    expect(entry).toMatchObject({ type: 'login.failed', accountId: 'acct', reason: 'bad_password' })
    expect(writer.stats().queued).toBe(0)
  })
})
