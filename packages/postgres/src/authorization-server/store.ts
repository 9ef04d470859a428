import { ConfigurationError, InvalidInputError } from '@portcullis/core'
import {
  checkedEntry,
  isOAuthServerEntryKey,
  type OAuthGrantStatus,
  type OAuthGrantSummary,
  type OAuthGrants,
  type OAuthServerChange,
  type OAuthServerConsumeOutcome,
  type OAuthServerEntry,
  type OAuthServerEntryKey,
  type OAuthServerStore,
  oauthServerEntryIndex,
  type StoredOAuthServerEntry,
  validateServerChange,
} from '@portcullis/core/authorization-server'
import { validateSecurityLogEntries, type WithSecurityLog } from '@portcullis/core/security-log'
import { and, desc, eq, sql } from 'drizzle-orm'
import type { PostgresClient } from '../client/postgres-client.js'
import { inStatement, inTransaction, type Transaction } from '../client/transaction.js'
import { insertOutboxEntries } from '../mail/outbox-insert.js'
import { revocationChannel } from '../revocation/channel.js'
import { insertSecurityLogEntries } from '../security-log/store.js'
import { activeGrantOf, activeGrantsOf, endGrant, live } from './grants.js'
import { oauthServerEntriesTable as entries } from './tables.js'

export interface PostgresOAuthServerStoreOptions {
  /** From `createPostgresClient`; run `migrate(client)` first. */
  readonly client: Pick<PostgresClient, 'db' | 'pool' | 'schema'>
  /** Milliseconds since the epoch: when entries expire and what `createdAt`/`lastUsedAt` record. Default `Date.now`. */
  readonly clock?: () => number
}

const notAGrantId = () => new InvalidInputError('oauth_server.invalid_entry', 'not a grant id')

/** The lookup condition of a `find` key, or undefined for a key that cannot match a stored entry. */
function keyCondition(key: OAuthServerEntryKey) {
  if (typeof key !== 'object' || key === null) return undefined
  if ('id' in key) return isOAuthServerEntryKey(key.id) ? eq(entries.id, key.id) : undefined
  if ('uid' in key) return isOAuthServerEntryKey(key.uid) ? eq(entries.uid, key.uid) : undefined
  if ('userCode' in key) {
    return isOAuthServerEntryKey(key.userCode) ? eq(entries.userCode, key.userCode) : undefined
  }
  return undefined
}

/**
 * Saves one entry: a `Grant` with its account's security epoch read in the same statement, a token of a
 * grant moving the grant's `lastUsedAt`. A replaced entry keeps when it was created, consumed and last used.
 */
async function save(tx: Transaction, checked: OAuthServerEntry, now: Date): Promise<void> {
  const index = oauthServerEntryIndex(checked)
  const grant = checked.model === 'Grant'
  // The account's epoch as the grant is saved, read in the same statement (null for an unknown account:
  // such a grant is never active).
  const securityEpoch =
    grant && index.accountId !== undefined
      ? sql`(select security_epoch from portcullis_accounts where account_id = ${index.accountId})`
      : null
  await tx
    .insert(entries)
    .values({
      model: checked.model,
      id: checked.id,
      payload: checked.payload,
      grantId: index.grantId ?? null,
      uid: index.uid ?? null,
      userCode: index.userCode ?? null,
      accountId: index.accountId ?? null,
      clientId: index.clientId ?? null,
      securityEpoch,
      expiresAt: checked.expiresAt ?? null,
      createdAt: now,
    })
    .onConflictDoUpdate({
      target: [entries.model, entries.id],
      set: {
        payload: sql`excluded.payload`,
        grantId: sql`excluded.grant_id`,
        uid: sql`excluded.uid`,
        userCode: sql`excluded.user_code`,
        accountId: sql`excluded.account_id`,
        clientId: sql`excluded.client_id`,
        securityEpoch: sql`excluded.security_epoch`,
        expiresAt: sql`excluded.expires_at`,
      },
    })
  if (!grant && index.grantId !== undefined) {
    await tx
      .update(entries)
      .set({ lastUsedAt: sql`greatest(${entries.lastUsedAt}, ${now.toISOString()}::timestamptz)` })
      .where(and(eq(entries.model, 'Grant'), eq(entries.id, index.grantId)))
  }
}

/**
 * Marks the entry consumed in one statement: the UPDATE waits on a concurrent consumer's row lock and then
 * finds the row consumed; `found` reads the same snapshot, so a live entry the UPDATE did not take was
 * consumed before.
 */
function consumeStatement(model: string, id: string, now: Date) {
  const at = now.toISOString()
  return sql`
    with taken as (
      update portcullis_oauth_server_entries set consumed_at = ${at}::timestamptz
      where model = ${model} and id = ${id} and consumed_at is null
        and (expires_at is null or expires_at > ${at}::timestamptz)
      returning 1
    )
    select exists(select 1 from taken) as consumed,
      exists(
        select 1 from portcullis_oauth_server_entries
        where model = ${model} and id = ${id} and (expires_at is null or expires_at > ${at}::timestamptz)
      ) as found`
}

const outcomeOf = (row: { consumed: boolean; found: boolean } | undefined): OAuthServerConsumeOutcome =>
  row?.consumed === true ? 'consumed' : row?.found === true ? 'already-consumed' : 'missing'

/**
 * The durable `OAuthServerStore` and `OAuthGrants` (`portcullis_oauth_server_entries`). Every operation is
 * one statement or one transaction: `consume` is one conditional UPDATE that tells a missing entry from a
 * consumed one in the same statement, so of concurrent calls on any number of instances exactly one
 * consumes; `rotate` is that UPDATE and the replacement's save in one transaction; saving a `Grant` records its account's security epoch in the same statement; saving a token of
 * a grant moves the grant's `lastUsedAt` in the same transaction; `revokeGrant` and `disconnect` delete
 * every entry of the grant and send its `grant` notice in their transaction; `status` is one indexed read
 * joining the account.
 */
export class PostgresOAuthServerStore implements OAuthServerStore, OAuthGrants {
  readonly #client: PostgresOAuthServerStoreOptions['client']
  readonly #channel: string
  readonly #clock: () => number

  constructor(options: PostgresOAuthServerStoreOptions) {
    const client = options?.client
    if (typeof client?.db?.transaction !== 'function' || typeof client.pool?.connect !== 'function') {
      throw new ConfigurationError(
        'oauth_server.store_options',
        'PostgresOAuthServerStore needs a client from createPostgresClient',
      )
    }
    const clock = options.clock ?? Date.now
    if (typeof clock !== 'function') {
      throw new ConfigurationError('oauth_server.store_options', 'clock must be a function')
    }
    this.#client = client
    this.#channel = revocationChannel(client.schema)
    this.#clock = clock
  }

  async upsert(entry: OAuthServerEntry, change?: OAuthServerChange): Promise<void> {
    const checked = checkedEntry(entry)
    const outbox = validateServerChange(checked, change)
    const now = this.#now()
    // The grant and its connection notification commit together or not at all.
    await inTransaction(this.#client.pool, async (tx) => {
      await save(tx, checked, now)
      await insertOutboxEntries(tx, outbox)
    })
  }

  async find(model: string, key: OAuthServerEntryKey): Promise<StoredOAuthServerEntry | undefined> {
    const condition = keyCondition(key)
    if (!isOAuthServerEntryKey(model) || condition === undefined) return undefined
    const now = this.#now()
    const [row] = await inStatement(() =>
      this.#client.db
        .select({
          id: entries.id,
          payload: entries.payload,
          expiresAt: entries.expiresAt,
          consumedAt: entries.consumedAt,
        })
        .from(entries)
        .where(and(eq(entries.model, model), condition, live(now)))
        .orderBy(desc(entries.createdAt))
        .limit(1),
    )
    if (row === undefined) return undefined
    return {
      model,
      id: row.id,
      payload: row.payload,
      expiresAt: row.expiresAt ?? undefined,
      consumedAt: row.consumedAt ?? undefined,
    }
  }

  async consume(model: string, id: string): Promise<OAuthServerConsumeOutcome> {
    if (!isOAuthServerEntryKey(model) || !isOAuthServerEntryKey(id)) return 'missing'
    const result = await inStatement(() =>
      this.#client.db.execute<{ consumed: boolean; found: boolean }>(
        consumeStatement(model, id, this.#now()),
      ),
    )
    return outcomeOf(result.rows[0])
  }

  async rotate(model: string, id: string, replacement: OAuthServerEntry): Promise<OAuthServerConsumeOutcome> {
    const checked = checkedEntry(replacement)
    if (!isOAuthServerEntryKey(model) || !isOAuthServerEntryKey(id)) return 'missing'
    const now = this.#now()
    // One transaction: the replacement is saved only after the consumption, and a failed save rolls the
    // consumption back.
    return inTransaction(this.#client.pool, async (tx) => {
      const result = await tx.execute<{ consumed: boolean; found: boolean }>(consumeStatement(model, id, now))
      const outcome = outcomeOf(result.rows[0])
      if (outcome === 'consumed') await save(tx, checked, now)
      return outcome
    })
  }

  async destroy(model: string, id: string): Promise<void> {
    if (!isOAuthServerEntryKey(model) || !isOAuthServerEntryKey(id)) return
    await inStatement(() =>
      this.#client.db.delete(entries).where(and(eq(entries.model, model), eq(entries.id, id))),
    )
  }

  async revokeGrant(grantId: string): Promise<void> {
    if (!isOAuthServerEntryKey(grantId)) throw notAGrantId()
    await inTransaction(this.#client.pool, (tx) => endGrant(tx, this.#channel, grantId))
  }

  list(accountId: string): Promise<readonly OAuthGrantSummary[]> {
    if (!isOAuthServerEntryKey(accountId)) return Promise.resolve([])
    return inStatement(() => activeGrantsOf(this.#client.db, accountId, this.#now()))
  }

  /** `disconnect` writes a change's `securityLog` entries in its transaction (the same database's log). */
  readonly securityLogInTransaction = true

  async disconnect(accountId: string, grantId: string, change?: WithSecurityLog): Promise<boolean> {
    const logEntries = validateSecurityLogEntries(change?.securityLog)
    if (!isOAuthServerEntryKey(accountId) || !isOAuthServerEntryKey(grantId)) return false
    const now = this.#now()
    return inTransaction(this.#client.pool, async (tx) => {
      const [owned] = await tx
        .select({ id: entries.id })
        .from(entries)
        .where(
          and(
            eq(entries.model, 'Grant'),
            eq(entries.id, grantId),
            eq(entries.accountId, accountId),
            live(now),
          ),
        )
        .for('update')
      if (owned === undefined) return false
      await endGrant(tx, this.#channel, grantId)
      await insertSecurityLogEntries(tx, logEntries)
      return true
    })
  }

  status(grantId: string): Promise<OAuthGrantStatus | undefined> {
    if (!isOAuthServerEntryKey(grantId)) return Promise.resolve(undefined)
    return inStatement(() => activeGrantOf(this.#client.db, grantId, this.#now()))
  }

  #now(): Date {
    const now = new Date(this.#clock())
    if (!Number.isFinite(now.getTime())) {
      throw new InvalidInputError(
        'oauth_server.store_clock',
        'clock() must return milliseconds since the epoch',
      )
    }
    return now
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresOAuthServerStore {}'
  }
}
