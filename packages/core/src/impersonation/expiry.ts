import { createHash } from 'node:crypto'
import type { SecurityLogEntry } from '../security-log/entry.js'
import type { SecurityLog } from '../security-log/port.js'
import { SECURITY_LOG_BATCH_MAX } from '../security-log/requests.js'
import { MAX_IMPERSONATION_TTL_SECONDS } from './options.js'

/** The `reason` of the end entry of an impersonation that ran out at its bound. */
export const IMPERSONATION_EXPIRED_REASON = 'expired'

export interface ExpiredImpersonationsOptions {
  /** Default: now. */
  readonly now?: Date
  /** How far past the longest bound to look for impersonations nobody recorded the end of. Default 1 day. */
  readonly lookbackSeconds?: number
}

const PAGE = 200

/**
 * The id of an impersonation's `expired` end entry: the same on every instance, so two instances that
 * notice the same bound write one entry (the log keeps an entry appended twice once: same id, same instant).
 */
export function expiredImpersonationEntryId(impersonationId: string): string {
  return createHash('sha256')
    .update(`portcullis.impersonation.expired\u0000${impersonationId}`, 'utf8')
    .digest('hex')
    .slice(0, 32)
}

/** The `expired` end entry of the impersonation `started` records, at its bound. */
export function expiredImpersonationEntry(started: SecurityLogEntry, bound: Date): SecurityLogEntry {
  const impersonationId = String(started.details.impersonationId)
  return Object.freeze({
    id: expiredImpersonationEntryId(impersonationId),
    at: bound,
    type: 'impersonation.ended',
    accountId: started.accountId,
    actorId: started.actorId,
    reason: IMPERSONATION_EXPIRED_REASON,
    sessionHandle: started.sessionHandle,
    clientAddress: null,
    clientAddressHash: null,
    device: null,
    details: Object.freeze({ impersonationId }),
  })
}

async function everyEntry(
  log: SecurityLog,
  type: string,
  since: Date,
  until: Date,
): Promise<SecurityLogEntry[]> {
  const entries: SecurityLogEntry[] = []
  let cursor: string | undefined
  for (;;) {
    const page = await log.listByType({ type, since, until, limit: PAGE, cursor })
    entries.push(...page.entries)
    if (page.nextCursor === null) return entries
    cursor = page.nextCursor
  }
}

/**
 * The sweep's part for impersonations: every impersonation whose bound has passed and whose end the log
 * does not hold (ended by its administrator, or by the administrator's sign-out after it started) gets
 * its `impersonation.ended` entry with reason `expired`, at its bound. Safe on every instance at once:
 * the entry's id is derived from the impersonation, so however many instances sweep, the log keeps one.
 * Answers how many end entries this call wrote (an instance racing another may count one the other also
 * wrote; the log still holds one). Reads are by type and time, each one indexed range scan per page.
 */
export async function recordExpiredImpersonations(
  log: SecurityLog,
  options: ExpiredImpersonationsOptions = {},
): Promise<number> {
  const now = options.now ?? new Date()
  const lookback = (options.lookbackSeconds ?? 86_400) * 1000
  const since = new Date(now.getTime() - MAX_IMPERSONATION_TTL_SECONDS * 1000 - lookback)
  const until = new Date(now.getTime() + 1)
  const started = await everyEntry(log, 'impersonation.started', since, until)
  if (started.length === 0) return 0
  const ended = await everyEntry(log, 'impersonation.ended', since, until)
  const endedIds = new Set(
    ended.map((entry) => entry.details.impersonationId).filter((id) => id !== undefined),
  )
  /** The administrator's sign-outs that ended every impersonation they had started by then. */
  const signedOut = new Map<string, number>()
  for (const entry of ended) {
    if (entry.reason !== 'administrator_signed_out' || entry.actorId === null) continue
    signedOut.set(entry.actorId, Math.max(signedOut.get(entry.actorId) ?? 0, entry.at.getTime()))
  }
  const due: SecurityLogEntry[] = []
  for (const entry of started) {
    const impersonationId = entry.details.impersonationId
    const ttl = entry.details.expiresInSeconds
    if (typeof impersonationId !== 'string' || typeof ttl !== 'number') continue
    if (endedIds.has(impersonationId)) continue
    const bound = entry.at.getTime() + ttl * 1000
    if (bound > now.getTime()) continue
    const signOut = entry.actorId === null ? undefined : signedOut.get(entry.actorId)
    if (signOut !== undefined && signOut >= entry.at.getTime()) continue
    due.push(expiredImpersonationEntry(entry, new Date(bound)))
  }
  for (let offset = 0; offset < due.length; offset += SECURITY_LOG_BATCH_MAX) {
    await log.append(due.slice(offset, offset + SECURITY_LOG_BATCH_MAX))
  }
  return due.length
}
