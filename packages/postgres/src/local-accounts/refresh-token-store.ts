import {
  type CreateRefreshFamilyRequest,
  type RefreshTokenStore,
  type RevokeAccountRefreshFamiliesRequest,
  type RevokeRefreshFamilyRequest,
  type RotateRefreshTokenOutcome,
  type RotateRefreshTokenRequest,
  refreshFamilyRecord,
  validateCreateRefreshFamily,
  validateRevokeAccountRefreshFamilies,
  validateRevokeRefreshFamily,
  validateRotateRefreshToken,
} from '@portcullis/core/local-accounts'
import { and, eq, gt, isNull, sql } from 'drizzle-orm'
import { inTransaction, type Transaction } from '../client/transaction.js'
import { notifyRevocations } from '../revocation/channel.js'
import { duplicateOr, type LocalStoreClient, type LocalStoreContext, storeContext } from './client.js'
import { refreshFamiliesTable as families, refreshTokensTable as tokens } from './tables.js'

export interface PostgresRefreshTokenStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: LocalStoreClient
}

/** The columns of a family row that make up its record. */
const familyColumns = {
  familyId: families.familyId,
  accountId: families.accountId,
  securityEpoch: families.securityEpoch,
  createdAt: families.createdAt,
  absoluteExpiresAt: families.absoluteExpiresAt,
}

/**
 * The durable `RefreshTokenStore`: families and their tokens (digests only), tokens deleted with their
 * family. `rotate` is one transaction whose first statement decides the race: a conditional UPDATE of
 * the presented token (`rotated_at is null`, unexpired, family live). Of concurrent uses of one token on
 * any number of instances exactly one updates the row; the others, re-checking after the winner
 * commits, find it rotated, report `reused` and revoke the family in the same transaction.
 */
export class PostgresRefreshTokenStore implements RefreshTokenStore {
  readonly #context: LocalStoreContext

  constructor(options: PostgresRefreshTokenStoreOptions) {
    this.#context = storeContext(options, 'PostgresRefreshTokenStore')
  }

  async createFamily(request: CreateRefreshFamilyRequest): Promise<void> {
    const { family, token } = validateCreateRefreshFamily(request)
    try {
      await inTransaction(this.#context.pool, async (tx) => {
        await tx.insert(families).values(family)
        await tx.insert(tokens).values({
          digest: token.digest,
          familyId: family.familyId,
          issuedAt: family.createdAt,
          expiresAt: token.expiresAt,
        })
      })
    } catch (error) {
      throw duplicateOr(error, 'a refresh token family or token with this id')
    }
  }

  async rotate(request: RotateRefreshTokenRequest): Promise<RotateRefreshTokenOutcome> {
    const { presentedDigest, next, now } = validateRotateRefreshToken(request)
    try {
      return await inTransaction(this.#context.pool, async (tx): Promise<RotateRefreshTokenOutcome> => {
        const [won] = await tx
          .update(tokens)
          .set({ rotatedAt: now })
          .from(families)
          .where(
            and(
              eq(tokens.digest, presentedDigest),
              isNull(tokens.rotatedAt),
              gt(tokens.expiresAt, now),
              eq(families.familyId, tokens.familyId),
              isNull(families.revokedAt),
              gt(families.absoluteExpiresAt, now),
            ),
          )
          .returning(familyColumns)
        if (won === undefined) return reuseOrInvalid(tx, this.#context.channel, presentedDigest, now)
        const cap = won.absoluteExpiresAt.getTime()
        const expiresAt = new Date(Math.min(next.expiresAt.getTime(), cap))
        await tx
          .insert(tokens)
          .values({ digest: next.digest, familyId: won.familyId, issuedAt: now, expiresAt })
        return { outcome: 'rotated', family: refreshFamilyRecord(won), expiresAt }
      })
    } catch (error) {
      throw duplicateOr(error, 'a refresh token with this digest')
    }
  }

  async revoke(request: RevokeRefreshFamilyRequest): Promise<boolean> {
    const target = validateRevokeRefreshFamily(request)
    const family =
      target.by === 'family'
        ? eq(families.familyId, target.familyId)
        : eq(
            families.familyId,
            sql`(select ${tokens.familyId} from ${tokens} where ${tokens.digest} = ${target.digest})`,
          )
    return inTransaction(this.#context.pool, async (tx) => {
      const revoked = await tx
        .update(families)
        .set({ revokedAt: target.now })
        .where(and(family, isNull(families.revokedAt), gt(families.absoluteExpiresAt, target.now)))
        .returning({ familyId: families.familyId })
      await announce(tx, this.#context.channel, revoked)
      return revoked.length === 1
    })
  }

  async revokeAccount(request: RevokeAccountRefreshFamiliesRequest): Promise<number> {
    const { accountId, now } = validateRevokeAccountRefreshFamilies(request)
    return inTransaction(this.#context.pool, async (tx) => {
      const revoked = await tx
        .update(families)
        .set({ revokedAt: now })
        .where(
          and(
            eq(families.accountId, accountId),
            isNull(families.revokedAt),
            gt(families.absoluteExpiresAt, now),
          ),
        )
        .returning({ familyId: families.familyId })
      await announce(tx, this.#context.channel, revoked)
      return revoked.length
    })
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresRefreshTokenStore {}'
  }
}

/** Sends a `refresh-family` notice for each family revoked in `tx`. */
function announce(tx: Transaction, channel: string, revoked: readonly { familyId: string }[]) {
  return notifyRevocations(
    tx,
    channel,
    revoked.map(({ familyId }) => ({ kind: 'refresh-family', familyId })),
  )
}

/**
 * The presented token did not rotate. If it is a known, already rotated token of a family that has not
 * ended, this is reuse: revoke the family (keeping an earlier revocation time) and report it.
 */
async function reuseOrInvalid(
  tx: Transaction,
  channel: string,
  presentedDigest: string,
  now: Date,
): Promise<RotateRefreshTokenOutcome> {
  const [seen] = await tx
    .select({ rotatedAt: tokens.rotatedAt, familyId: families.familyId, accountId: families.accountId })
    .from(tokens)
    .innerJoin(families, eq(families.familyId, tokens.familyId))
    .where(and(eq(tokens.digest, presentedDigest), gt(families.absoluteExpiresAt, now)))
  if (seen === undefined || seen.rotatedAt === null) return { outcome: 'invalid' }
  const revoked = await tx
    .update(families)
    .set({ revokedAt: now })
    .where(and(eq(families.familyId, seen.familyId), isNull(families.revokedAt)))
    .returning({ familyId: families.familyId })
  await announce(tx, channel, revoked)
  return { outcome: 'reused', familyId: seen.familyId, accountId: seen.accountId, rotatedAt: seen.rotatedAt }
}
