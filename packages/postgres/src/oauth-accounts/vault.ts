import { accounts } from '@portcullis/core/oauth'
import { parseProtectedEnvelope, serializeProtectedEnvelope } from '@portcullis/core/protection'
import { and, eq, isNotNull, sql } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { sessionIsShared } from '../client/database-error.js'
import { inStatement, type Transaction } from '../client/transaction.js'
import type { AccountStoreContext } from './context.js'
import { requireId, requireTokenSet, requireVersion } from './request-input.js'
import { vaultTable } from './tables.js'
import { openTokens, sealTokens, vaultAssociatedData } from './vault-codec.js'

const { OAuthAccountError, OAuthAccountErrorCodes } = accounts
type ProviderTokenSet = accounts.ProviderTokenSet
type ProviderTokenReference = accounts.ProviderTokenReference
type VaultRequest<K extends keyof accounts.OAuthTokenVault> = Parameters<accounts.OAuthTokenVault[K]>[0]

/** Seals tokens as `version` of a provider account and serializes the envelope for its text column. */
export async function sealVault(
  context: AccountStoreContext,
  providerAccountId: string,
  version: number,
  tokens: ProviderTokenSet,
): Promise<string> {
  const aad = vaultAssociatedData(context.provider, context.clientId, providerAccountId, version)
  const envelope = await sealTokens(context.protector, tokens, aad)
  return serializeEnvelope(envelope)
}

export function serializeEnvelope(envelope: Parameters<typeof serializeProtectedEnvelope>[0]): string {
  try {
    return serializeProtectedEnvelope(envelope)
  } catch (error) {
    throw new OAuthAccountError(
      OAuthAccountErrorCodes.vaultUnavailable,
      'provider tokens could not be sealed',
      {
        cause: error,
      },
    )
  }
}

/** Parses a stored `pe1.` envelope; a damaged column is the same error as a failed open. */
export function parseEnvelope(text: string): ReturnType<typeof parseProtectedEnvelope> {
  try {
    return parseProtectedEnvelope(text)
  } catch (error) {
    throw new OAuthAccountError(
      OAuthAccountErrorCodes.vaultUnavailable,
      'retained provider tokens could not be opened',
      { cause: error },
    )
  }
}

export function referenceOf(
  providerAccountId: string,
  version: number,
  scopes: readonly string[],
  expiresAt: Date,
): ProviderTokenReference {
  return Object.freeze({
    providerAccountId,
    version,
    scopes: Object.freeze([...scopes]),
    expiresAt: new Date(expiresAt.getTime()),
  })
}

const ownRow = and(
  eq(vaultTable.providerAccountId, sql.placeholder('id')),
  eq(vaultTable.provider, sql.placeholder('provider')),
  eq(vaultTable.clientId, sql.placeholder('clientId')),
  isNotNull(vaultTable.envelope),
)
const cleared = { envelope: null, scopes: null, expiresAt: null }

/**
 * The vault's single-statement operations, built once. Named, they are parsed once per connection;
 * with `named` false they use the protocol's unnamed statement (name ''), parsed on every call.
 */
function prepare(db: NodePgDatabase, named: boolean) {
  const name = (label: string) => (named ? `portcullis_vault_${label}` : '')
  return {
    get: db
      .select({
        version: vaultTable.version,
        envelope: vaultTable.envelope,
        scopes: vaultTable.scopes,
        expiresAt: vaultTable.expiresAt,
      })
      .from(vaultTable)
      .where(ownRow)
      .prepare(name('get')),
    swap: db
      .update(vaultTable)
      .set({
        version: sql`${sql.placeholder('version')}::bigint`,
        envelope: sql`${sql.placeholder('envelope')}::text`,
        scopes: sql`${sql.placeholder('scopes')}::text[]`,
        expiresAt: sql`${sql.placeholder('expiresAt')}::timestamptz`,
      })
      .where(and(ownRow, eq(vaultTable.version, sql.placeholder('expected'))))
      .prepare(name('swap')),
    discard: db.update(vaultTable).set(cleared).where(ownRow).prepare(name('discard')),
    discardAt: db
      .update(vaultTable)
      .set(cleared)
      .where(and(ownRow, eq(vaultTable.version, sql.placeholder('expected'))))
      .prepare(name('discard_at')),
  }
}

type Statements = ReturnType<typeof prepare>
const named = new WeakMap<NodePgDatabase, Statements>()
const unnamed = new WeakMap<NodePgDatabase, Statements>()
/** Databases whose session turned out to be shared between connections (a pooler in transaction mode). */
const sharedSessions = new WeakSet<NodePgDatabase>()

function statements(context: AccountStoreContext): Statements {
  const { db } = context
  const useNames = context.preparedStatements && !sharedSessions.has(db)
  const cache = useNames ? named : unnamed
  let found = cache.get(db)
  if (found === undefined) {
    found = prepare(db, useNames)
    cache.set(db, found)
  }
  return found
}

/**
 * Runs one vault statement. `42P05` or `26000` (see `sessionIsShared`) means several connections share one session, as behind a
 * pooler in transaction mode: switch that database to unnamed statements and run the statement again.
 */
function vaultStatement<T>(
  context: AccountStoreContext,
  run: (prepared: Statements) => Promise<T>,
): Promise<T> {
  return inStatement(async () => {
    try {
      return await run(statements(context))
    } catch (error) {
      if (!sessionIsShared(error)) throw error
      sharedSessions.add(context.db)
      return run(statements(context))
    }
  })
}

/**
 * Inside a link operation that holds the link row lock: stores `tokens` as the next version of the
 * provider account, or, when `tokens` is null, clears any retained ones (keeping the version).
 */
export async function retainTokens(
  tx: Transaction,
  context: AccountStoreContext,
  providerAccountId: string,
  tokens: ProviderTokenSet | null,
): Promise<ProviderTokenReference | null> {
  const [current] = await tx
    .select({ version: vaultTable.version })
    .from(vaultTable)
    .where(eq(vaultTable.providerAccountId, providerAccountId))
    .for('update')
  if (tokens === null) {
    if (current !== undefined) {
      await tx.update(vaultTable).set(cleared).where(eq(vaultTable.providerAccountId, providerAccountId))
    }
    return null
  }
  const version = (current?.version ?? 0) + 1
  const values = {
    provider: context.provider,
    clientId: context.clientId,
    version,
    envelope: await sealVault(context, providerAccountId, version, tokens),
    scopes: [...tokens.scopes],
    expiresAt: tokens.expiresAt,
  }
  if (current === undefined) await tx.insert(vaultTable).values({ providerAccountId, ...values })
  else await tx.update(vaultTable).set(values).where(eq(vaultTable.providerAccountId, providerAccountId))
  return referenceOf(providerAccountId, version, tokens.scopes, tokens.expiresAt)
}

export async function getTokens(
  context: AccountStoreContext,
  providerAccountId: string,
): Promise<accounts.StoredProviderTokens | null> {
  const id = requireId(providerAccountId, 'providerAccountId')
  const where = { id, provider: context.provider, clientId: context.clientId }
  const [row] = await vaultStatement(context, (prepared) => prepared.get.execute(where))
  if (row?.envelope == null || row.scopes === null || row.expiresAt === null) return null
  const aad = vaultAssociatedData(context.provider, context.clientId, id, row.version)
  const tokens = await openTokens(context.protector, parseEnvelope(row.envelope), aad)
  return { reference: referenceOf(id, row.version, row.scopes, row.expiresAt), tokens }
}

/**
 * Refresh compare-and-swap in one conditional UPDATE: the next version is `expectedVersion + 1` (the
 * row is never deleted, so that number was never issued before), sealed before the statement runs.
 */
export async function replaceTokens(
  context: AccountStoreContext,
  request: VaultRequest<'replaceTokens'>,
): Promise<ProviderTokenReference | null> {
  const id = requireId(request?.providerAccountId, 'providerAccountId')
  const expected = requireVersion(request.expectedVersion)
  const tokens = requireTokenSet(request.tokens)
  if (expected >= Number.MAX_SAFE_INTEGER) return null
  const version = expected + 1
  const envelope = await sealVault(context, id, version, tokens)
  const swapped = await vaultStatement(context, (prepared) =>
    prepared.swap.execute({
      id,
      provider: context.provider,
      clientId: context.clientId,
      expected,
      version,
      envelope,
      scopes: [...tokens.scopes],
      expiresAt: tokens.expiresAt.toISOString(),
    }),
  )
  return swapped.rowCount === 1 ? referenceOf(id, version, tokens.scopes, tokens.expiresAt) : null
}

/** Clears retained tokens (only at `expectedVersion` when given); the row and its version stay. */
export async function discardTokens(
  context: AccountStoreContext,
  request: VaultRequest<'discardTokens'>,
): Promise<boolean> {
  const id = requireId(request?.providerAccountId, 'providerAccountId')
  const expected = request.expectedVersion === undefined ? undefined : requireVersion(request.expectedVersion)
  const where = { id, provider: context.provider, clientId: context.clientId }
  const discarded = await vaultStatement(context, (prepared) =>
    expected === undefined
      ? prepared.discard.execute(where)
      : prepared.discardAt.execute({ ...where, expected }),
  )
  return discarded.rowCount === 1
}
