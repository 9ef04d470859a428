import {
  checkAccountRequest,
  encodeSecurityLogCursor,
  MemorySecurityLog,
  type SecurityLog,
  type SecurityLogEntry,
  type SecurityLogPage,
} from '@portcullis/core/security-log'
import { describe, expect, it } from 'vitest'
import { runSuite } from '../suite/suite.js'
import { securityLogSuite } from './index.js'

/** A log with one flaw on top of the memory log, to prove the suite catches it. */
class FlawedLog implements SecurityLog {
  readonly inner = new MemorySecurityLog()
  readonly all: SecurityLogEntry[] = []
  constructor(readonly flaw: 'offset-cursor' | 'no-dedupe' | 'sweeps-newest' | 'partial-batch') {}

  async append(entries: readonly SecurityLogEntry[]): Promise<void> {
    if (this.flaw === 'no-dedupe') {
      // Stores every copy it is given (a retried batch twice).
      for (const entry of entries)
        await this.inner.append([
          { ...entry, id: `${entry.id.slice(0, 20)}${String(this.all.push(entry)).padStart(12, '0')}` },
        ])
      return
    }
    if (this.flaw === 'partial-batch') {
      for (const entry of entries) await this.inner.append([entry])
      return
    }
    await this.inner.append(entries)
  }

  async listForAccount(request: Parameters<SecurityLog['listForAccount']>[0]): Promise<SecurityLogPage> {
    if (this.flaw !== 'offset-cursor') return this.inner.listForAccount(request)
    // Pages by position: an entry appended meanwhile shifts every later page.
    const { accountId, limit } = checkAccountRequest({ ...request, cursor: undefined })
    const offset = request.cursor === undefined ? 0 : Number(request.cursor.split('.')[0])
    const everything = await this.inner.listForAccount({ accountId, limit: 200 })
    const entries = everything.entries.slice(offset, offset + limit)
    const last = entries.at(-1)
    const more = everything.entries.length > offset + limit && last !== undefined
    return {
      entries,
      nextCursor: more ? `${offset + limit}.${encodeSecurityLogCursor(last).split('.')[1]}` : null,
    }
  }

  listByType = (request: Parameters<SecurityLog['listByType']>[0]) => this.inner.listByType(request)

  async sweep(request: Parameters<SecurityLog['sweep']>[0]): Promise<number> {
    if (this.flaw !== 'sweeps-newest') return this.inner.sweep(request)
    // Deletes everything before the instant, ignoring the limit.
    return this.inner.sweep({ before: request.before, limit: 10_000 })
  }
}

describe('the SecurityLog suite', () => {
  it('passes the memory log', async () => {
    const results = await runSuite(
      securityLogSuite(() => {
        const log = new MemorySecurityLog()
        return { log, peer: log }
      }),
    )
    expect(results.filter((result) => !result.passed).map((result) => result.id)).toEqual([])
  })

  it.each([
    ['offset-cursor', 'security-log.cursor-stable-under-appends'],
    ['no-dedupe', 'security-log.append-idempotent'],
    ['sweeps-newest', 'security-log.sweep-bounded'],
    ['partial-batch', 'security-log.batch-all-or-nothing'],
  ] as const)('fails a log with the flaw %s at %s', async (flaw, caseId) => {
    const results = await runSuite(
      securityLogSuite(() => {
        const log = new FlawedLog(flaw)
        return { log, peer: log }
      }),
    )
    expect(results.filter((result) => !result.passed).map((result) => result.id)).toContain(caseId)
  })
})
