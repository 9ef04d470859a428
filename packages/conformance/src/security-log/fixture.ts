import { randomBytes } from 'node:crypto'
import type { SecurityLog, SecurityLogEntry } from '@portcullis/core/security-log'

/**
 * The log under test for one case. `peer` is a second instance on the same storage (another pool on the
 * same database); the memory log is its own peer. Cases use unique account ids and types, so fixtures may
 * share one database; only the sweep cases delete, and they work in the 1980s and 1990s, where nothing else is.
 */
export interface SecurityLogFixture {
  readonly log: SecurityLog
  readonly peer: SecurityLog
  dispose?(): Promise<void> | void
}

export type SecurityLogFactory = () => SecurityLogFixture | Promise<SecurityLogFixture>

export const unique = (prefix: string) => `${prefix}-${randomBytes(6).toString('hex')}`
export const uniqueType = () => `conformance.t_${randomBytes(6).toString('hex')}`
export const newId = () => randomBytes(16).toString('hex')

/** An entry with every column filled (override what a case needs). */
export function entry(fields: Partial<SecurityLogEntry> & Pick<SecurityLogEntry, 'at'>): SecurityLogEntry {
  return {
    id: newId(),
    type: 'login.failed',
    accountId: null,
    actorId: null,
    reason: 'bad_password',
    sessionHandle: null,
    clientAddress: '2001:db8::1',
    clientAddressHash: null,
    device: { browser: 'Firefox 133', os: 'Linux', platform: 'desktop' },
    details: {},
    ...fields,
  }
}

/** Every page of one account, following cursors. */
export async function everyPage(
  log: SecurityLog,
  accountId: string,
  limit: number,
): Promise<SecurityLogEntry[][]> {
  const pages: SecurityLogEntry[][] = []
  let cursor: string | undefined
  for (let guard = 0; guard < 10_000; guard += 1) {
    const page = await log.listForAccount({ accountId, limit, cursor })
    pages.push([...page.entries])
    if (page.nextCursor === null) return pages
    cursor = page.nextCursor
  }
  throw new Error('paging never ended')
}

/** An entry as one canonical string: every field in a fixed order, instants as milliseconds. */
export function canonical(value: SecurityLogEntry): string {
  const device = value.device === null ? null : [value.device.browser, value.device.os, value.device.platform]
  const details = Object.entries(value.details).sort(([x], [y]) => (x < y ? -1 : 1))
  return JSON.stringify([
    value.id,
    value.at instanceof Date ? value.at.getTime() : 'not a Date',
    value.type,
    value.accountId,
    value.actorId,
    value.reason,
    value.sessionHandle,
    value.clientAddress,
    value.clientAddressHash,
    device,
    details,
  ])
}

/** The same entry, field by field. */
export function sameEntry(a: SecurityLogEntry | undefined, b: SecurityLogEntry | undefined): boolean {
  return a !== undefined && b !== undefined && canonical(a) === canonical(b)
}

/** Newest first, ties by the greater id: the order every list answers in. */
export function newestFirst(entries: readonly SecurityLogEntry[]): SecurityLogEntry[] {
  return [...entries].sort(
    (a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
  )
}

/** Resolves to the error's code, or to `resolved` when the promise did not reject. */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
    return 'resolved'
  } catch (error) {
    const code = (error as { code?: unknown }).code
    return typeof code === 'string' ? code : 'untyped'
  }
}
