import { randomUUID } from 'node:crypto'
import type { accounts } from '@portcullis/core/oauth'
import { and, eq, isNull, lte, or, sql } from 'drizzle-orm'
import { PostgresUnavailableError } from '../client/database-error.js'
import { inStatement, inTransaction } from '../client/transaction.js'
import type { AccountStoreContext } from './context.js'
import {
  requireBoundedInteger,
  requireFailedTokenTypes,
  requireId,
  requireNow,
  requireTokenSet,
  requireVersion,
} from './request-input.js'
import { retriesTable, vaultTable } from './tables.js'
import { parseEnvelope, serializeEnvelope } from './vault.js'
import { openTokens, retryAssociatedData, sealTokens } from './vault-codec.js'

type Retries = accounts.OAuthRevocationRetries

const MAX_LEASE_SECONDS = 24 * 60 * 60

/**
 * One statement: clears the active tokens at `expectedVersion` and, only if that happened, inserts
 * the retry holding them (sealed beforehand, bound to the retry id). Null when the version moved.
 */
export async function stageRevocationRetry(
  context: AccountStoreContext,
  request: Parameters<Retries['stageRevocationRetry']>[0],
): Promise<{ readonly retryId: string } | null> {
  const id = requireId(request?.providerAccountId, 'providerAccountId')
  const expected = requireVersion(request.expectedVersion)
  const tokens = requireTokenSet(request.tokens)
  const failedTokenTypes = requireFailedTokenTypes(request.failedTokenTypes, tokens)
  const occurredAt = requireNow(request.occurredAt, 'occurredAt')
  const retryId = randomUUID()
  const aad = retryAssociatedData(context.provider, context.clientId, id, retryId)
  const envelope = serializeEnvelope(await sealTokens(context.protector, tokens, aad))
  const staged = await inStatement(() =>
    context.db.execute(sql`
      with discarded as (
        update ${vaultTable} set envelope = null, scopes = null, expires_at = null
        where provider_account_id = ${id} and provider = ${context.provider}
          and client_id = ${context.clientId} and version = ${expected} and envelope is not null
        returning provider_account_id
      )
      insert into ${retriesTable}
        (retry_id, provider, client_id, provider_account_id, failed_token_types, occurred_at, envelope)
      select ${retryId}, ${context.provider}, ${context.clientId}, provider_account_id,
        ${sql.param([...failedTokenTypes])}::text[], ${occurredAt.toISOString()}::timestamptz, ${envelope}
      from discarded
      returning retry_id`),
  )
  return staged.rows.length === 1 ? { retryId } : null
}

/**
 * One transaction: leases up to `limit` due retries, oldest first, skipping rows another drain holds
 * locked (`FOR UPDATE SKIP LOCKED`), then opens them all; a retry that does not open rolls the whole
 * claim back, so a failure claims nothing.
 */
export async function claimRevocationRetries(
  context: AccountStoreContext,
  request: Parameters<Retries['claimRevocationRetries']>[0],
): Promise<readonly accounts.ClaimedRevocationRetry[]> {
  const now = requireNow(request?.now)
  const leaseSeconds = requireBoundedInteger(request.leaseSeconds, 'leaseSeconds', 1, MAX_LEASE_SECONDS)
  const limit = requireBoundedInteger(request.limit, 'limit', 1, 1000)
  const until = new Date(now.getTime() + leaseSeconds * 1000)
  return inTransaction(context.pool, async (tx) => {
    const due = tx.$with('due').as(
      tx
        .select({ retryId: retriesTable.retryId })
        .from(retriesTable)
        .where(
          and(
            eq(retriesTable.provider, context.provider),
            eq(retriesTable.clientId, context.clientId),
            or(isNull(retriesTable.claimedUntil), lte(retriesTable.claimedUntil, now)),
          ),
        )
        .orderBy(retriesTable.occurredAt, retriesTable.retryId)
        .limit(limit)
        .for('update', { skipLocked: true }),
    )
    const claimed = await tx
      .with(due)
      .update(retriesTable)
      .set({
        attempts: sql`${retriesTable.attempts} + 1`,
        claim: sql`gen_random_uuid()::text`,
        claimedUntil: until,
      })
      .from(due)
      .where(eq(retriesTable.retryId, due.retryId))
      .returning()
    const rows = claimed.sort(
      (a, b) => a.occurredAt.getTime() - b.occurredAt.getTime() || (a.retryId < b.retryId ? -1 : 1),
    )
    return Promise.all(rows.map((row) => openRetry(context, row)))
  })
}

async function openRetry(
  context: AccountStoreContext,
  row: typeof retriesTable.$inferSelect,
): Promise<accounts.ClaimedRevocationRetry> {
  const aad = retryAssociatedData(context.provider, context.clientId, row.providerAccountId, row.retryId)
  const tokens = await openTokens(context.protector, parseEnvelope(row.envelope), aad)
  if (row.claim === null || row.claimedUntil === null)
    throw new PostgresUnavailableError('a claim was not recorded')
  return Object.freeze({
    retryId: row.retryId,
    providerAccountId: row.providerAccountId,
    failedTokenTypes: Object.freeze(row.failedTokenTypes as accounts.RevocationTokenType[]),
    occurredAt: row.occurredAt,
    attempts: row.attempts,
    claim: row.claim,
    claimedUntil: row.claimedUntil,
    tokens,
  })
}

/** Deletes a retry, only for the holder of its latest claim. */
export async function completeRevocationRetry(
  context: AccountStoreContext,
  request: Parameters<Retries['completeRevocationRetry']>[0],
): Promise<boolean> {
  const retryId = requireId(request?.retryId, 'retryId')
  const claim = requireId(request.claim, 'claim')
  const deleted = await inStatement(() =>
    context.db
      .delete(retriesTable)
      .where(
        and(
          eq(retriesTable.retryId, retryId),
          eq(retriesTable.claim, claim),
          eq(retriesTable.provider, context.provider),
          eq(retriesTable.clientId, context.clientId),
        ),
      ),
  )
  return deleted.rowCount === 1
}
