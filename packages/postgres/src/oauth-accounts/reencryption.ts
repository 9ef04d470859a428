import { accounts } from '@portcullis/core/oauth'
import {
  type ProtectedEnvelope,
  parseProtectedEnvelope,
  serializeProtectedEnvelope,
} from '@portcullis/core/protection'
import { and, eq, gt, isNotNull, type SQL, sql } from 'drizzle-orm'
import type { PgColumn } from 'drizzle-orm/pg-core'
import { inStatement } from '../client/transaction.js'
import type { AccountStoreContext } from './context.js'
import { invalidInput } from './request-input.js'
import { retriesTable, vaultTable } from './tables.js'

type StaleVaultEnvelope = accounts.StaleVaultEnvelope

/**
 * The key version of a stored `pe1.<keyVersion>.<base64url>` envelope (labels may contain dots, base64url
 * never does, so it is everything up to the last dot); null for a value of any other shape.
 */
const keyVersionOf = (column: PgColumn): SQL => sql`substring(${column} from '^pe1\\.(.*)\\.[A-Za-z0-9_-]+$')`

/** Labelled with another version than the active one, or damaged (no readable label at all). */
const notUnder = (column: PgColumn, activeKeyVersion: string): SQL =>
  sql`${keyVersionOf(column)} is distinct from ${activeKeyVersion}`

/** The parsed envelope, or null when the column is damaged (the helper reports it, nothing rewrites it). */
function parsed(text: string): ProtectedEnvelope | null {
  try {
    return parseProtectedEnvelope(text)
  } catch {
    return null
  }
}

/**
 * Stale vault entries of this registration in primary-key order, then stale retries in primary-key
 * order: one statement per table a batch touches, each walking the primary key from the cursor, so a
 * pass over a large vault reads it once. A read: no locks, the rewrite is what compares and swaps.
 */
export async function listStaleEnvelopes(
  context: AccountStoreContext,
  request: accounts.ListStaleEnvelopesRequest,
): Promise<readonly StaleVaultEnvelope[]> {
  const { activeKeyVersion, after, limit } = accounts.requireStaleEnvelopeListing(request)
  const stale: StaleVaultEnvelope[] = []
  if (after === undefined || after.kind === 'vault-tokens') {
    const rows = await inStatement(() =>
      context.db
        .select({
          providerAccountId: vaultTable.providerAccountId,
          version: vaultTable.version,
          envelope: vaultTable.envelope,
        })
        .from(vaultTable)
        .where(
          and(
            eq(vaultTable.provider, context.provider),
            eq(vaultTable.clientId, context.clientId),
            isNotNull(vaultTable.envelope),
            notUnder(vaultTable.envelope, activeKeyVersion),
            after === undefined ? undefined : gt(vaultTable.providerAccountId, after.providerAccountId),
          ),
        )
        .orderBy(vaultTable.providerAccountId)
        .limit(limit),
    )
    for (const row of rows) {
      const { providerAccountId, version } = row
      stale.push({ kind: 'vault-tokens', providerAccountId, version, envelope: parsed(row.envelope ?? '') })
    }
    if (stale.length === limit) return stale
  }
  const retryAfter = after?.kind === 'revocation-retry' ? after.retryId : undefined
  const rows = await inStatement(() =>
    context.db
      .select({
        retryId: retriesTable.retryId,
        providerAccountId: retriesTable.providerAccountId,
        envelope: retriesTable.envelope,
      })
      .from(retriesTable)
      .where(
        and(
          eq(retriesTable.provider, context.provider),
          eq(retriesTable.clientId, context.clientId),
          notUnder(retriesTable.envelope, activeKeyVersion),
          retryAfter === undefined ? undefined : gt(retriesTable.retryId, retryAfter),
        ),
      )
      .orderBy(retriesTable.retryId)
      .limit(limit - stale.length),
  )
  for (const { retryId, providerAccountId, envelope } of rows) {
    stale.push({ kind: 'revocation-retry', retryId, providerAccountId, envelope: parsed(envelope) })
  }
  return stale
}

/**
 * One conditional UPDATE of the envelope column only: the row must still hold the listed envelope text
 * (and, in the vault, the listed version), so a concurrent refresh, discard or completed retry wins.
 */
export async function rewriteEnvelope(
  context: AccountStoreContext,
  request: accounts.RewriteEnvelopeRequest,
): Promise<boolean> {
  const { stale, envelope } = accounts.requireEnvelopeRewrite(request)
  if (stale.envelope === null) return false
  let expected: string
  let next: string
  try {
    expected = serializeProtectedEnvelope(stale.envelope)
    next = serializeProtectedEnvelope(envelope)
  } catch {
    throw invalidInput('envelopes must be protector envelopes')
  }
  const written =
    stale.kind === 'vault-tokens'
      ? await inStatement(() =>
          context.db
            .update(vaultTable)
            .set({ envelope: next })
            .where(
              and(
                eq(vaultTable.providerAccountId, stale.providerAccountId),
                eq(vaultTable.provider, context.provider),
                eq(vaultTable.clientId, context.clientId),
                eq(vaultTable.version, stale.version),
                eq(vaultTable.envelope, expected),
              ),
            ),
        )
      : await inStatement(() =>
          context.db
            .update(retriesTable)
            .set({ envelope: next })
            .where(
              and(
                eq(retriesTable.retryId, stale.retryId),
                eq(retriesTable.provider, context.provider),
                eq(retriesTable.clientId, context.clientId),
                eq(retriesTable.providerAccountId, stale.providerAccountId),
                eq(retriesTable.envelope, expected),
              ),
            ),
        )
  return written.rowCount === 1
}
