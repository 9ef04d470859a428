import { ConfigurationError } from '@portcullis/core'
import {
  type PasskeyChallenge,
  type PasskeyChallengeKey,
  type PasskeyChallengeStore,
  PasskeyError,
  PasskeyErrorCodes,
  requirePasskeyDate,
  validatePasskeyChallenge,
  validatePasskeyChallengeKey,
} from '@portcullis/core/passkeys'
import { and, eq, lte } from 'drizzle-orm'
import { asStoreError, sqlStateOf } from '../client/database-error.js'
import type { PostgresClient } from '../client/postgres-client.js'
import { inStatement } from '../client/transaction.js'
import { passkeyChallengesTable as challenges } from './tables.js'

export interface PostgresPasskeyChallengeStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: Pick<PostgresClient, 'db'>
}

/**
 * The durable `PasskeyChallengeStore` (`portcullis_passkey_challenges`, digests only). Consuming is one
 * `DELETE ... WHERE challenge_digest AND binding_digest RETURNING`: one winner on any number of
 * instances, and another browser's lookup deletes nothing. `sweepExpired`-style cleanup:
 * `purgeExpiredChallenges(now)`.
 */
export class PostgresPasskeyChallengeStore implements PasskeyChallengeStore {
  readonly #db: PostgresPasskeyChallengeStoreOptions['client']['db']

  constructor(options: PostgresPasskeyChallengeStoreOptions) {
    if (typeof options?.client?.db?.delete !== 'function') {
      throw new ConfigurationError(
        'passkey.invalid_config',
        'PostgresPasskeyChallengeStore needs a client from createPostgresClient',
      )
    }
    this.#db = options.client.db
  }

  async createChallenge(challenge: PasskeyChallenge): Promise<void> {
    const valid = validatePasskeyChallenge(challenge)
    try {
      await this.#db.insert(challenges).values(valid)
    } catch (error) {
      if (sqlStateOf(error) === '23505') {
        throw new PasskeyError(PasskeyErrorCodes.invalidInput, 'the challenge digest is already stored')
      }
      throw asStoreError(error)
    }
  }

  async consumeChallenge(key: PasskeyChallengeKey, now: Date): Promise<PasskeyChallenge | null> {
    const { challengeDigest, bindingDigest } = validatePasskeyChallengeKey(key)
    const at = requirePasskeyDate(now, 'now')
    const [row] = await inStatement(() =>
      this.#db
        .delete(challenges)
        .where(
          and(eq(challenges.challengeDigest, challengeDigest), eq(challenges.bindingDigest, bindingDigest)),
        )
        .returning(),
    )
    return row === undefined || row.expiresAt.getTime() <= at.getTime() ? null : Object.freeze({ ...row })
  }

  async purgeExpiredChallenges(now: Date): Promise<number> {
    const at = requirePasskeyDate(now, 'now')
    const removed = await inStatement(() => this.#db.delete(challenges).where(lte(challenges.expiresAt, at)))
    return removed.rowCount ?? 0
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresPasskeyChallengeStore {}'
  }
}
