import { ApiKeyError, type ApiKeyUsage } from '@portcullis/core/api-keys'
import type pg from 'pg'
import { inStatement } from '../client/transaction.js'

/**
 * One statement for a whole batch. Rows are locked in key order before they are updated, so two
 * instances flushing overlapping batches at once queue behind each other instead of deadlocking; the
 * update keeps the later of the stored and the reported time, so `last_used_at` never moves back.
 */
const RECORD_USAGE = `
with usage (key_id, used_at) as (
  select * from unnest($1::text[], $2::timestamptz[])
), due as materialized (
  select k.key_id, usage.used_at
  from portcullis_api_keys k join usage on usage.key_id = k.key_id
  where k.last_used_at is null or k.last_used_at < usage.used_at
  order by k.key_id
  for update of k
)
update portcullis_api_keys k set last_used_at = greatest(k.last_used_at, due.used_at)
from due where k.key_id = due.key_id`

/** The latest time per key id; malformed entries are refused before anything is written. */
function latestPerKey(usage: readonly ApiKeyUsage[]): Map<string, number> {
  if (!Array.isArray(usage)) throw new ApiKeyError('api_key.invalid_input', 'usage must be a list')
  const latest = new Map<string, number>()
  for (const entry of usage) {
    const keyId: unknown = entry?.keyId
    const usedAt: unknown = entry?.usedAt
    if (typeof keyId !== 'string' || !(usedAt instanceof Date) || Number.isNaN(usedAt.getTime())) {
      throw new ApiKeyError('api_key.invalid_input', 'usage entries need a keyId and a valid usedAt')
    }
    const time = usedAt.getTime()
    if (time > (latest.get(keyId) ?? Number.NEGATIVE_INFINITY)) latest.set(keyId, time)
  }
  return latest
}

/** Moves `last_used_at` forward for a batch in ONE statement (none for an empty batch); unknown ids are ignored. */
export async function recordApiKeyUsage(pool: pg.Pool, usage: readonly ApiKeyUsage[]): Promise<void> {
  const latest = latestPerKey(usage)
  if (latest.size === 0) return
  const keyIds = [...latest.keys()]
  const usedAt = [...latest.values()].map((time) => new Date(time).toISOString())
  await inStatement(() => pool.query(RECORD_USAGE, [keyIds, usedAt]))
}
