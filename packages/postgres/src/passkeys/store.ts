import { ConfigurationError } from '@portcullis/core'
import {
  type PasskeyAccountRequest,
  type PasskeyChangeOptions,
  type PasskeyCredential,
  type PasskeyStore,
  type RecordPasskeyUseRequest,
  type RemovePasskeyOutcome,
  requireCredentialId,
  requirePasskeyAccountId,
  requirePasskeyDate,
  requirePasskeyName,
  validatePasskeyAccountRequest,
  validatePasskeyChangeOptions,
  validatePasskeyCredential,
  validateRecordPasskeyUse,
} from '@portcullis/core/passkeys'
import { and, asc, eq, isNull } from 'drizzle-orm'
import type { PostgresClient } from '../client/postgres-client.js'
import { inStatement, inTransaction } from '../client/transaction.js'
import { insertOutboxEntries } from '../mail/outbox-insert.js'
import { removePasskeyMethod } from './removal.js'
import { passkeysTable as passkeys } from './tables.js'

export interface PostgresPasskeyStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: Pick<PostgresClient, 'db' | 'pool'>
}

type Row = typeof passkeys.$inferSelect

const record = (row: Row): PasskeyCredential =>
  Object.freeze({ ...row, transports: Object.freeze([...row.transports]) })

/**
 * The durable `PasskeyStore` (`portcullis_passkeys`). A use is one conditional `UPDATE ... WHERE
 * counter = expected AND suspended_at IS NULL`, so of assertions racing on one counter exactly one wins
 * on any number of instances. A removal locks the account row and counts its sign-in methods first, so
 * the last way to sign in stays.
 */
export class PostgresPasskeyStore implements PasskeyStore {
  readonly #db: PostgresPasskeyStoreOptions['client']['db']
  readonly #pool: PostgresPasskeyStoreOptions['client']['pool']

  constructor(options: PostgresPasskeyStoreOptions) {
    if (typeof options?.client?.db?.select !== 'function') {
      throw new ConfigurationError(
        'passkey.invalid_config',
        'PostgresPasskeyStore needs a client from createPostgresClient',
      )
    }
    this.#db = options.client.db
    this.#pool = options.client.pool
  }

  async addPasskey(
    credential: PasskeyCredential,
    options?: PasskeyChangeOptions,
  ): Promise<'added' | 'duplicate'> {
    const valid = validatePasskeyCredential(credential)
    const outbox = validatePasskeyChangeOptions(options)
    const values = { ...valid, transports: [...valid.transports] }
    if (outbox.length === 0) {
      const added = await inStatement(() =>
        this.#db
          .insert(passkeys)
          .values(values)
          .onConflictDoNothing({ target: passkeys.credentialId })
          .returning({ id: passkeys.credentialId }),
      )
      return added.length === 1 ? 'added' : 'duplicate'
    }
    // The passkey and its notification in one transaction: both or neither.
    return inTransaction(this.#pool, async (tx) => {
      const added = await tx
        .insert(passkeys)
        .values(values)
        .onConflictDoNothing({ target: passkeys.credentialId })
        .returning({ id: passkeys.credentialId })
      if (added.length === 0) return 'duplicate'
      await insertOutboxEntries(tx, outbox)
      return 'added'
    })
  }

  async findPasskey(credentialId: string): Promise<PasskeyCredential | null> {
    const id = requireCredentialId(credentialId)
    const [row] = await inStatement(() =>
      this.#db.select().from(passkeys).where(eq(passkeys.credentialId, id)),
    )
    return row === undefined ? null : record(row)
  }

  async listPasskeys(accountId: string): Promise<readonly PasskeyCredential[]> {
    const id = requirePasskeyAccountId(accountId)
    const rows = await inStatement(() =>
      this.#db
        .select()
        .from(passkeys)
        .where(eq(passkeys.accountId, id))
        .orderBy(asc(passkeys.createdAt), asc(passkeys.credentialId)),
    )
    return rows.map(record)
  }

  async recordPasskeyUse(request: RecordPasskeyUseRequest): Promise<boolean> {
    const { credentialId, expectedCounter, counter, backedUp, now } = validateRecordPasskeyUse(request)
    const used = await inStatement(() =>
      this.#db
        .update(passkeys)
        .set({ counter, backedUp, lastUsedAt: now })
        .where(
          and(
            eq(passkeys.credentialId, credentialId),
            eq(passkeys.counter, expectedCounter),
            isNull(passkeys.suspendedAt),
          ),
        )
        .returning({ id: passkeys.credentialId }),
    )
    return used.length === 1
  }

  async suspendPasskey(credentialId: string, now: Date): Promise<boolean> {
    const id = requireCredentialId(credentialId)
    const at = requirePasskeyDate(now, 'now')
    await inStatement(() =>
      this.#db
        .update(passkeys)
        .set({ suspendedAt: at })
        .where(and(eq(passkeys.credentialId, id), isNull(passkeys.suspendedAt))),
    )
    return (await this.findPasskey(id)) !== null
  }

  async renamePasskey(request: PasskeyAccountRequest & { readonly name: string }): Promise<boolean> {
    const { accountId, credentialId } = validatePasskeyAccountRequest(request)
    const name = requirePasskeyName(request.name)
    const renamed = await inStatement(() =>
      this.#db
        .update(passkeys)
        .set({ name })
        .where(and(eq(passkeys.credentialId, credentialId), eq(passkeys.accountId, accountId)))
        .returning({ id: passkeys.credentialId }),
    )
    return renamed.length === 1
  }

  async removePasskey(
    request: PasskeyAccountRequest,
    options?: PasskeyChangeOptions,
  ): Promise<RemovePasskeyOutcome> {
    const valid = validatePasskeyAccountRequest(request)
    const outbox = validatePasskeyChangeOptions(options)
    return inTransaction(this.#pool, async (tx) => {
      const outcome = await removePasskeyMethod(tx, valid)
      if (outcome === 'removed') await insertOutboxEntries(tx, outbox)
      return outcome
    })
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresPasskeyStore {}'
  }
}
