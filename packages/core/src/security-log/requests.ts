import {
  decodeSecurityLogCursor,
  requireSecurityLogDate,
  SECURITY_LOG_LIMITS,
  type SecurityLogEntry,
  type SecurityLogPosition,
  validateSecurityLogEntry,
} from './entry.js'
import { invalidSecurityLogInput } from './errors.js'
import type { AccountLogRequest, SweepLogRequest, TypeLogRequest } from './port.js'

// The checks every `SecurityLog` implementation runs on its requests, so they all refuse alike.

/** Entries per `append`. */
export const SECURITY_LOG_BATCH_MAX = 1000

const TYPE = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/

function count(value: unknown, name: string, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > max) {
    throw invalidSecurityLogInput(`${name} must be an integer 1-${max}`)
  }
  return value
}

function cursorOf(value: unknown): SecurityLogPosition | undefined {
  return value === undefined ? undefined : decodeSecurityLogCursor(value)
}

export function checkAppend(entries: readonly SecurityLogEntry[]): SecurityLogEntry[] {
  if (!Array.isArray(entries)) throw invalidSecurityLogInput('entries must be an array')
  if (entries.length > SECURITY_LOG_BATCH_MAX) {
    throw invalidSecurityLogInput(`append takes at most ${SECURITY_LOG_BATCH_MAX} entries`)
  }
  return entries.map(validateSecurityLogEntry)
}

export function checkAccountRequest(request: AccountLogRequest): {
  accountId: string
  limit: number
  after: SecurityLogPosition | undefined
} {
  if (typeof request !== 'object' || request === null) throw invalidSecurityLogInput('a request is required')
  const { accountId } = request
  if (
    typeof accountId !== 'string' ||
    accountId.length === 0 ||
    accountId.length > SECURITY_LOG_LIMITS.identifierMax
  ) {
    throw invalidSecurityLogInput('accountId must be 1-255 characters')
  }
  return {
    accountId,
    limit: count(request.limit, 'limit', SECURITY_LOG_LIMITS.pageMax),
    after: cursorOf(request.cursor),
  }
}

export function checkTypeRequest(request: TypeLogRequest): {
  type: string
  since: Date
  until: Date
  limit: number
  after: SecurityLogPosition | undefined
} {
  if (typeof request !== 'object' || request === null) throw invalidSecurityLogInput('a request is required')
  const { type } = request
  if (typeof type !== 'string' || type.length > SECURITY_LOG_LIMITS.typeMax || !TYPE.test(type)) {
    throw invalidSecurityLogInput('type is malformed')
  }
  const since = requireSecurityLogDate(request.since, 'since')
  const until = requireSecurityLogDate(request.until, 'until')
  if (until.getTime() < since.getTime()) throw invalidSecurityLogInput('until must not be before since')
  return {
    type,
    since,
    until,
    limit: count(request.limit, 'limit', SECURITY_LOG_LIMITS.pageMax),
    after: cursorOf(request.cursor),
  }
}

export function checkSweepRequest(request: SweepLogRequest): { before: Date; limit: number } {
  if (typeof request !== 'object' || request === null) throw invalidSecurityLogInput('a request is required')
  return {
    before: requireSecurityLogDate(request.before, 'before'),
    limit: count(request.limit, 'limit', SECURITY_LOG_LIMITS.sweepMax),
  }
}
