import type { accounts } from '@portcullis/core/oauth'
import {
  type ProtectedEnvelope,
  parseProtectedEnvelope,
  serializeProtectedEnvelope,
} from '@portcullis/core/protection'
import { and, eq, isNotNull } from 'drizzle-orm'
import type { PostgresClient } from '../client/postgres-client.js'
import { inStatement } from '../client/transaction.js'
import { requireId } from './request-input.js'
import { retriesTable, vaultTable } from './tables.js'

/**
 * The conformance suite's view below the `PostgresOAuthAccountStore` API: reads and overwrites the
 * envelope columns directly, so the suite can prove tokens are ciphertext and bound to their row. A
 * test hook: never wire it into an application.
 */
export function inspectPostgresOAuthAccountStore(
  client: Pick<PostgresClient, 'db'>,
): accounts.OAuthVaultInspector {
  const { db } = client
  return {
    async readVaultEnvelope(providerAccountId): Promise<ProtectedEnvelope | null> {
      const id = requireId(providerAccountId, 'providerAccountId')
      const [row] = await inStatement(() =>
        db
          .select({ envelope: vaultTable.envelope })
          .from(vaultTable)
          .where(eq(vaultTable.providerAccountId, id)),
      )
      return row?.envelope == null ? null : parseProtectedEnvelope(row.envelope)
    },
    async writeVaultEnvelope(providerAccountId, envelope): Promise<boolean> {
      const id = requireId(providerAccountId, 'providerAccountId')
      const written = await inStatement(() =>
        db
          .update(vaultTable)
          .set({ envelope: serializeProtectedEnvelope(envelope) })
          .where(and(eq(vaultTable.providerAccountId, id), isNotNull(vaultTable.envelope))),
      )
      return written.rowCount === 1
    },
    async readRetryEnvelope(retryId): Promise<ProtectedEnvelope | null> {
      const id = requireId(retryId, 'retryId')
      const [row] = await inStatement(() =>
        db.select({ envelope: retriesTable.envelope }).from(retriesTable).where(eq(retriesTable.retryId, id)),
      )
      return row === undefined ? null : parseProtectedEnvelope(row.envelope)
    },
  }
}
