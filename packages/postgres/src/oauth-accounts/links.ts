import { randomUUID } from 'node:crypto'
import { accounts } from '@portcullis/core/oauth'
import { and, eq } from 'drizzle-orm'
import { bumpEpoch, lockAndCountMethods } from '../accounts/methods.js'
import { accountsTable } from '../accounts/tables.js'
import { PostgresUnavailableError } from '../client/database-error.js'
import { inStatement, inTransaction, type Transaction } from '../client/transaction.js'
import { insertOutboxEntries } from '../mail/outbox-insert.js'
import { type AccountStoreContext, toLink, unknownAccount } from './context.js'
import {
  invalidInput,
  optionalOutbox,
  optionalTokenSet,
  requireGrant,
  requireId,
  requireIdentity,
  requireNow,
} from './request-input.js'
import { type LinkRow, linksTable, vaultTable } from './tables.js'
import { retainTokens } from './vault.js'

const { AccountLinkError, OAuthAccountError, OAuthAccountErrorCodes } = accounts
type Links = accounts.OAuthIdentityLinks
type Identity = {
  readonly issuer: string
  readonly subject: string
  readonly email: string | null
  readonly emailVerified: boolean | null
}

/** Locks the link of an exact identity of this provider, if there is one. */
async function lockIdentity(
  tx: Transaction,
  context: AccountStoreContext,
  identity: Identity,
): Promise<LinkRow | undefined> {
  const [row] = await tx
    .select()
    .from(linksTable)
    .where(
      and(
        eq(linksTable.provider, context.provider),
        eq(linksTable.issuer, identity.issuer),
        eq(linksTable.subject, identity.subject),
      ),
    )
    .for('update')
  return row
}

async function refreshGrant(
  tx: Transaction,
  providerAccountId: string,
  identity: Identity,
  grant: accounts.ProviderGrant,
  now: Date,
): Promise<LinkRow> {
  const [row] = await tx
    .update(linksTable)
    .set({
      grantScopes: [...grant.scopes],
      grantExpiresAt: grant.expiresAt,
      email: identity.email,
      emailVerified: identity.emailVerified,
      updatedAt: now,
    })
    .where(eq(linksTable.providerAccountId, providerAccountId))
    .returning()
  if (row === undefined) throw new PostgresUnavailableError('a locked link disappeared')
  return row
}

/**
 * Inserts the link unless the identity is linked already (`ON CONFLICT` on the identity key waits
 * for a concurrent inserter and then does nothing). Undefined when another transaction won.
 */
async function insertLink(
  tx: Transaction,
  context: AccountStoreContext,
  accountId: string,
  identity: Identity,
  grant: accounts.ProviderGrant,
  now: Date,
): Promise<LinkRow | undefined> {
  const [row] = await tx
    .insert(linksTable)
    .values({
      providerAccountId: `pa_${randomUUID()}`,
      accountId,
      provider: context.provider,
      issuer: identity.issuer,
      subject: identity.subject,
      email: identity.email,
      emailVerified: identity.emailVerified,
      grantScopes: [...grant.scopes],
      grantExpiresAt: grant.expiresAt,
      linkedAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing({ target: [linksTable.provider, linksTable.issuer, linksTable.subject] })
    .returning()
  return row
}

const ATTEMPTS = 3
/** Room the `(provider, issuer, subject)` unique index leaves (a btree entry holds at most 2704 bytes). */
const MAX_IDENTITY_BYTES = 2400

/** The core's identity rules, plus a byte bound so a long multi-byte identity is bad input, not an outage. */
function requireIndexableIdentity(identity: unknown, provider: string): Identity {
  const checked = requireIdentity(identity, provider)
  const bytes =
    Buffer.byteLength(provider, 'utf8') +
    Buffer.byteLength(checked.issuer, 'utf8') +
    Buffer.byteLength(checked.subject, 'utf8')
  if (bytes > MAX_IDENTITY_BYTES) {
    throw invalidInput(`provider, issuer and subject together must be at most ${MAX_IDENTITY_BYTES} bytes`)
  }
  return checked
}

export async function login(
  context: AccountStoreContext,
  request: Parameters<Links['login']>[0],
): Promise<accounts.OAuthLoginOutcome> {
  const identity = requireIndexableIdentity(request?.identity, context.provider)
  const grant = requireGrant(request.grant)
  const tokens = optionalTokenSet(request.tokens)
  const now = requireNow(request.now)
  if (typeof request.provisionUnknown !== 'boolean') throw invalidInput('provisionUnknown must be a boolean')
  return inTransaction(context.pool, async (tx) => {
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const existing = await lockIdentity(tx, context, identity)
      if (existing !== undefined) {
        const row = await refreshGrant(tx, existing.providerAccountId, identity, grant, now)
        const reference = await retainTokens(tx, context, row.providerAccountId, tokens)
        return { provisioned: false, link: toLink(row), tokens: reference }
      }
      if (!request.provisionUnknown) {
        throw new OAuthAccountError(
          OAuthAccountErrorCodes.unknownIdentity,
          'no account is linked to this identity',
        )
      }
      const accountId = `acct_${randomUUID()}`
      await tx
        .insert(accountsTable)
        .values({ accountId, securityEpoch: 1, status: 'active', createdAt: now, updatedAt: now })
      const created = await insertLink(tx, context, accountId, identity, grant, now)
      if (created !== undefined) {
        const reference = await retainTokens(tx, context, created.providerAccountId, tokens)
        return { provisioned: true, link: toLink(created), tokens: reference }
      }
      // A concurrent first login of this identity committed first: drop our account, use its link.
      await tx.delete(accountsTable).where(eq(accountsTable.accountId, accountId))
    }
    throw new PostgresUnavailableError('the identity kept changing during login')
  })
}

export async function link(
  context: AccountStoreContext,
  request: Parameters<Links['link']>[0],
): Promise<accounts.LinkOutcome> {
  const accountId = requireId(request?.accountId, 'accountId')
  const identity = requireIndexableIdentity(request.identity, context.provider)
  const grant = requireGrant(request.grant)
  const tokens = optionalTokenSet(request.tokens)
  const now = requireNow(request.now)
  const outbox = optionalOutbox(request.outbox)
  return inTransaction(context.pool, async (tx) => {
    // Lock order everywhere: account, then link, then vault row.
    const [account] = await tx
      .select({ accountId: accountsTable.accountId })
      .from(accountsTable)
      .where(eq(accountsTable.accountId, accountId))
      .for('update')
    if (account === undefined) throw unknownAccount()
    for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
      const current = await lockIdentity(tx, context, identity)
      if (current !== undefined && current.accountId !== accountId) {
        throw new AccountLinkError('identity-linked-elsewhere')
      }
      if (current !== undefined) {
        const row = await refreshGrant(tx, current.providerAccountId, identity, grant, now)
        const reference = await retainTokens(tx, context, row.providerAccountId, tokens)
        return { status: 'relinked', link: toLink(row), tokens: reference }
      }
      const [sameProvider] = await tx
        .select({ providerAccountId: linksTable.providerAccountId })
        .from(linksTable)
        .where(and(eq(linksTable.accountId, accountId), eq(linksTable.provider, context.provider)))
      if (sameProvider !== undefined) throw new AccountLinkError('provider-already-linked')
      const created = await insertLink(tx, context, accountId, identity, grant, now)
      if (created !== undefined) {
        const reference = await retainTokens(tx, context, created.providerAccountId, tokens)
        // The new link's notification commits with it (never for a relink or a refused link).
        await insertOutboxEntries(tx, outbox)
        return { status: 'linked', link: toLink(created), tokens: reference }
      }
      // Another account linked the identity concurrently; the next look finds its committed link.
    }
    throw new PostgresUnavailableError('the identity kept changing during link')
  })
}

export async function upgradeScopes(
  context: AccountStoreContext,
  request: Parameters<Links['upgradeScopes']>[0],
): Promise<accounts.ScopeUpgradeOutcome> {
  const accountId = requireId(request?.accountId, 'accountId')
  const providerAccountId = requireId(request.providerAccountId, 'providerAccountId')
  const identity = requireIndexableIdentity(request.identity, context.provider)
  const grant = requireGrant(request.grant)
  const tokens = optionalTokenSet(request.tokens)
  const now = requireNow(request.now)
  return inTransaction(context.pool, async (tx) => {
    const [current] = await tx
      .select()
      .from(linksTable)
      .where(
        and(eq(linksTable.providerAccountId, providerAccountId), eq(linksTable.provider, context.provider)),
      )
      .for('update')
    if (current === undefined || current.accountId !== accountId) {
      throw new OAuthAccountError(
        OAuthAccountErrorCodes.linkNotFound,
        'the account has no such provider link',
      )
    }
    if (current.issuer !== identity.issuer || current.subject !== identity.subject) {
      throw new OAuthAccountError(
        OAuthAccountErrorCodes.identityMismatch,
        'the identity is not the linked identity',
      )
    }
    const row = await refreshGrant(tx, providerAccountId, identity, grant, now)
    return { link: toLink(row), tokens: await retainTokens(tx, context, providerAccountId, tokens) }
  })
}

export async function unlink(
  context: AccountStoreContext,
  request: Parameters<Links['unlink']>[0],
): Promise<accounts.UnlinkOutcome> {
  const accountId = requireId(request?.accountId, 'accountId')
  const provider = requireId(request.provider, 'provider')
  const providerAccountId = requireId(request.providerAccountId, 'providerAccountId')
  const outbox = optionalOutbox(request.outbox)
  if (provider !== context.provider) return { status: 'not-found' }
  return inTransaction(context.pool, async (tx): Promise<accounts.UnlinkOutcome> => {
    const methods = await lockAndCountMethods(tx, accountId)
    if (methods === null) return { status: 'not-found' }
    const [current] = await tx
      .select({ providerAccountId: linksTable.providerAccountId })
      .from(linksTable)
      .where(
        and(
          eq(linksTable.providerAccountId, providerAccountId),
          eq(linksTable.accountId, accountId),
          eq(linksTable.provider, context.provider),
        ),
      )
      .for('update')
    if (current === undefined) return { status: 'not-found' }
    if (methods <= 1) return { status: 'final-method' }
    await tx.delete(linksTable).where(eq(linksTable.providerAccountId, providerAccountId))
    // The vault row stays as a tombstone so its version never restarts; only the envelope goes.
    await tx
      .update(vaultTable)
      .set({ envelope: null, scopes: null, expiresAt: null })
      .where(eq(vaultTable.providerAccountId, providerAccountId))
    // Removing a way in ends every session and token family made before (in this transaction).
    const securityEpoch = await bumpEpoch(tx, context.channel, accountId, new Date())
    await insertOutboxEntries(tx, outbox)
    return { status: 'unlinked', providerAccountId, securityEpoch }
  })
}

export async function resolveLink(
  context: AccountStoreContext,
  request: Parameters<Links['resolveLink']>[0],
): Promise<accounts.LinkedProviderAccount | null> {
  const accountId = requireId(request?.accountId, 'accountId')
  const provider = requireId(request.provider, 'provider')
  if (provider !== context.provider) return null
  const [row] = await inStatement(() =>
    context.db
      .select()
      .from(linksTable)
      .where(and(eq(linksTable.accountId, accountId), eq(linksTable.provider, context.provider))),
  )
  return row === undefined ? null : toLink(row)
}
