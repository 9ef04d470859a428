import { requireSecurityLogDate } from './entry.js'
import { SecurityLogError, SecurityLogErrorCodes } from './errors.js'
import type { SecurityLog } from './port.js'

/** How long entries are kept by default: 180 days. */
export const SECURITY_LOG_RETENTION_DAYS = 180

const DAY_MS = 86_400_000

export interface SecurityLogRetentionOptions {
  /** Default now. */
  readonly now?: Date
  /** Entries older than this many days go, 1-36500. Default 180. */
  readonly retentionDays?: number
  /** Entries per batch (one `sweep` call), 1-10000. Default 500. */
  readonly batchSize?: number
  /** Batches per call, 1-1000. Default 100. */
  readonly maxBatches?: number
}

function bounded(value: number | undefined, fallback: number, max: number, name: string): number {
  const chosen = value ?? fallback
  if (!Number.isSafeInteger(chosen) || chosen < 1 || chosen > max) {
    throw new SecurityLogError(SecurityLogErrorCodes.invalidInput, `${name} must be an integer 1-${max}`)
  }
  return chosen
}

/** The instant before which entries are past retention. */
export function securityLogCutoff(now: Date, retentionDays: number = SECURITY_LOG_RETENTION_DAYS): Date {
  const days = bounded(retentionDays, SECURITY_LOG_RETENTION_DAYS, 36_500, 'retentionDays')
  return new Date(requireSecurityLogDate(now, 'now').getTime() - days * DAY_MS)
}

/**
 * Deletes entries past retention in bounded batches (each one `sweep`, its own short statement);
 * `more` is true when it stopped at `maxBatches` with a full last batch: call again.
 */
export async function sweepSecurityLog(
  log: Pick<SecurityLog, 'sweep'>,
  options: SecurityLogRetentionOptions = {},
): Promise<{ readonly deleted: number; readonly more: boolean }> {
  const before = securityLogCutoff(options.now ?? new Date(), options.retentionDays)
  const limit = bounded(options.batchSize, 500, 10_000, 'batchSize')
  const maxBatches = bounded(options.maxBatches, 100, 1000, 'maxBatches')
  let deleted = 0
  for (let batch = 0; batch < maxBatches; batch += 1) {
    const count = await log.sweep({ before, limit })
    deleted += count
    if (count < limit) return { deleted, more: false }
  }
  return { deleted, more: true }
}
