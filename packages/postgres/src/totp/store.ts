import { ConfigurationError } from '@portcullis/core'
import {
  type EnableTotpRequest,
  type ListStaleTotpSecretsRequest,
  type RedeemRecoveryCodeRequest,
  type RemoveTotpOptions,
  type ReplaceRecoveryCodesRequest,
  type ResealTotpSecretRequest,
  requireTotpAccountId,
  type SavePendingTotpRequest,
  type StaleTotpSecret,
  type TotpEnrollment,
  type TotpSecretResealing,
  type TotpStore,
  type UseTotpStepRequest,
  validateEnableTotp,
  validateListStaleTotpSecrets,
  validateRedeemRecoveryCode,
  validateRemoveTotpOptions,
  validateReplaceRecoveryCodes,
  validateResealTotpSecret,
  validateSavePendingTotp,
  validateUseTotpStep,
} from '@portcullis/core/totp'
import { and, count, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm'
import type { PostgresClient } from '../client/postgres-client.js'
import { inStatement, inTransaction, type Transaction } from '../client/transaction.js'
import { withOutbox } from '../mail/outbox-insert.js'
import { recoveryCodesTable as codes, totpEnrollmentsTable as enrollments } from './tables.js'

export interface PostgresTotpStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: Pick<PostgresClient, 'db' | 'pool'>
}

async function insertCodes(tx: Transaction, accountId: string, digests: readonly string[], now: Date) {
  if (digests.length > 0) {
    await tx.insert(codes).values(digests.map((digest) => ({ accountId, digest, createdAt: now })))
  }
}

/** The key version label of `pe1.<keyVersion>.<base64url>` (everything up to the last dot); null otherwise. */
const keyVersionOfSecret = sql`substring(${enrollments.sealedSecret} from '^pe1\\.(.*)\\.[A-Za-z0-9_-]+$')`

/**
 * The durable `TotpStore`: `portcullis_totp_enrollments` (sealed secret, status, last used time step)
 * and `portcullis_recovery_codes` (digests, deleted with their enrollment). A time step is used by one
 * conditional `UPDATE ... WHERE last_used_step < step` and a recovery code by one `DELETE ... RETURNING`,
 * so of concurrent callers on any number of instances exactly one wins. Re-sealing after a key rotation
 * (`TotpSecretResealing`) walks the primary key and rewrites one row by a conditional `UPDATE`.
 */
export class PostgresTotpStore implements TotpStore, TotpSecretResealing {
  readonly #client: PostgresTotpStoreOptions['client']

  constructor(options: PostgresTotpStoreOptions) {
    const client = options?.client
    if (typeof client?.db?.transaction !== 'function' || typeof client.pool?.connect !== 'function') {
      throw new ConfigurationError(
        'totp.invalid_config',
        'PostgresTotpStore needs a client from createPostgresClient',
      )
    }
    this.#client = client
  }

  async getTotpEnrollment(accountId: string): Promise<TotpEnrollment | null> {
    const id = requireTotpAccountId(accountId)
    const [row] = await inStatement(() =>
      this.#client.db.select().from(enrollments).where(eq(enrollments.accountId, id)),
    )
    return row === undefined ? null : Object.freeze({ ...row })
  }

  async savePendingTotp(request: SavePendingTotpRequest): Promise<'saved' | 'already-enabled'> {
    const { accountId, sealedSecret, now } = validateSavePendingTotp(request)
    const pending = {
      sealedSecret,
      status: 'pending' as const,
      createdAt: now,
      enabledAt: null,
      lastUsedStep: null,
    }
    const saved = await inStatement(() =>
      this.#client.db
        .insert(enrollments)
        .values({ accountId, ...pending })
        .onConflictDoUpdate({
          target: enrollments.accountId,
          set: pending,
          setWhere: eq(enrollments.status, 'pending'),
        })
        .returning({ accountId: enrollments.accountId }),
    )
    return saved.length === 1 ? 'saved' : 'already-enabled'
  }

  async enableTotp(request: EnableTotpRequest): Promise<boolean> {
    const { accountId, sealedSecret, step, recoveryCodeDigests, now, outbox } = validateEnableTotp(request)
    return inTransaction(this.#client.pool, async (tx) => {
      const enabled = await tx
        .update(enrollments)
        .set({ status: 'enabled', enabledAt: now, lastUsedStep: step })
        .where(
          and(
            eq(enrollments.accountId, accountId),
            eq(enrollments.status, 'pending'),
            eq(enrollments.sealedSecret, sealedSecret),
          ),
        )
        .returning({ accountId: enrollments.accountId })
      if (enabled.length === 0) return false
      await tx.delete(codes).where(eq(codes.accountId, accountId))
      await insertCodes(tx, accountId, recoveryCodeDigests, now)
      return withOutbox(tx, outbox ?? [], true)
    })
  }

  async useTotpStep(request: UseTotpStepRequest): Promise<boolean> {
    const { accountId, step } = validateUseTotpStep(request)
    // READ COMMITTED re-checks the WHERE clause on the row a concurrent winner committed: one winner.
    const used = await inStatement(() =>
      this.#client.db
        .update(enrollments)
        .set({ lastUsedStep: step })
        .where(
          and(
            eq(enrollments.accountId, accountId),
            eq(enrollments.status, 'enabled'),
            or(isNull(enrollments.lastUsedStep), lt(enrollments.lastUsedStep, step)),
          ),
        )
        .returning({ accountId: enrollments.accountId }),
    )
    return used.length === 1
  }

  async removeTotp(accountId: string, options?: RemoveTotpOptions): Promise<boolean> {
    const id = requireTotpAccountId(accountId)
    const outbox = validateRemoveTotpOptions(options)
    if (outbox.length === 0) {
      const removed = await inStatement(() =>
        this.#client.db
          .delete(enrollments)
          .where(eq(enrollments.accountId, id))
          .returning({ accountId: enrollments.accountId }),
      )
      return removed.length === 1
    }
    // The removal and its notification in one transaction: both or neither.
    return inTransaction(this.#client.pool, async (tx) => {
      const removed = await tx
        .delete(enrollments)
        .where(eq(enrollments.accountId, id))
        .returning({ accountId: enrollments.accountId })
      if (removed.length === 0) return false
      return withOutbox(tx, outbox, true)
    })
  }

  async replaceRecoveryCodes(request: ReplaceRecoveryCodesRequest): Promise<boolean> {
    const { accountId, digests, now, outbox } = validateReplaceRecoveryCodes(request)
    return inTransaction(this.#client.pool, async (tx) => {
      // The enrollment row lock orders this against a concurrent removal (which deletes it first).
      const [enrollment] = await tx
        .select({ accountId: enrollments.accountId })
        .from(enrollments)
        .where(and(eq(enrollments.accountId, accountId), eq(enrollments.status, 'enabled')))
        .for('update')
      if (enrollment === undefined) return false
      await tx.delete(codes).where(eq(codes.accountId, accountId))
      await insertCodes(tx, accountId, digests, now)
      return withOutbox(tx, outbox ?? [], true)
    })
  }

  async redeemRecoveryCode(request: RedeemRecoveryCodeRequest): Promise<boolean> {
    const { accountId, candidates } = validateRedeemRecoveryCode(request)
    const redeemed = await inStatement(() =>
      this.#client.db
        .delete(codes)
        .where(and(eq(codes.accountId, accountId), inArray(codes.digest, [...candidates])))
        .returning({ digest: codes.digest }),
    )
    return redeemed.length > 0
  }

  async countRecoveryCodes(accountId: string): Promise<number> {
    const id = requireTotpAccountId(accountId)
    const [row] = await inStatement(() =>
      this.#client.db.select({ total: count() }).from(codes).where(eq(codes.accountId, id)),
    )
    return Number(row?.total ?? 0)
  }

  async listStaleTotpSecrets(request: ListStaleTotpSecretsRequest): Promise<readonly StaleTotpSecret[]> {
    const { activeKeyVersion, afterAccountId, limit } = validateListStaleTotpSecrets(request)
    const rows = await inStatement(() =>
      this.#client.db
        .select({ accountId: enrollments.accountId, sealedSecret: enrollments.sealedSecret })
        .from(enrollments)
        .where(
          and(
            sql`${keyVersionOfSecret} is distinct from ${activeKeyVersion}`,
            afterAccountId === undefined ? undefined : gt(enrollments.accountId, afterAccountId),
          ),
        )
        .orderBy(enrollments.accountId)
        .limit(limit),
    )
    return rows.map((row) => Object.freeze({ ...row }))
  }

  async resealTotpSecret(request: ResealTotpSecretRequest): Promise<boolean> {
    const { accountId, expected, sealedSecret } = validateResealTotpSecret(request)
    // READ COMMITTED re-checks the WHERE clause on a row a concurrent re-enrollment committed: it loses then.
    const written = await inStatement(() =>
      this.#client.db
        .update(enrollments)
        .set({ sealedSecret })
        .where(and(eq(enrollments.accountId, accountId), eq(enrollments.sealedSecret, expected)))
        .returning({ accountId: enrollments.accountId }),
    )
    return written.length === 1
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresTotpStore {}'
  }
}
