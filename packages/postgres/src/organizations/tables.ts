import { sql } from 'drizzle-orm'
import {
  check,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core'
import { accountsTable } from '../accounts/tables.js'
import { bytea, instant } from '../columns/columns.js'

// Organizations (the application's tenants), their memberships (one role per account and
// organization) and pending invitations (HMAC digests of their codes, bound to a normalized address).
// Every change to an organization's memberships locks its `portcullis_organizations` row first, so the
// owner count and the actor's rank are read under the lock that makes the change. Memberships and
// invitations go with their organization and with their account (on delete cascade).

export const organizationsTable = pgTable(
  'portcullis_organizations',
  {
    organizationId: text('organization_id').primaryKey(),
    name: text('name').notNull(),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (table) => [
    check(
      'portcullis_organizations_id_check',
      sql`${table.organizationId} ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$'`,
    ),
    check('portcullis_organizations_name_check', sql`char_length(${table.name}) between 1 and 200`),
  ],
)

export const membershipsTable = pgTable(
  'portcullis_memberships',
  {
    organizationId: text('organization_id').notNull(),
    accountId: text('account_id').notNull(),
    role: text('role').notNull(),
    joinedAt: instant('joined_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (table) => [
    primaryKey({ name: 'portcullis_memberships_pkey', columns: [table.organizationId, table.accountId] }),
    foreignKey({
      name: 'portcullis_memberships_organization_id_fkey',
      columns: [table.organizationId],
      foreignColumns: [organizationsTable.organizationId],
    }).onDelete('cascade'),
    foreignKey({
      name: 'portcullis_memberships_account_id_fkey',
      columns: [table.accountId],
      foreignColumns: [accountsTable.accountId],
    }).onDelete('cascade'),
    check('portcullis_memberships_role_check', sql`char_length(${table.role}) between 1 and 64`),
    // An account's memberships (the resolver's one read per request, and the account's deletion).
    index('portcullis_memberships_account_idx').on(table.accountId, table.organizationId),
    // The owners of an organization, counted under its lock.
    index('portcullis_memberships_owners_idx').on(table.organizationId).where(sql`${table.role} = 'owner'`),
  ],
)

export const invitationsTable = pgTable(
  'portcullis_invitations',
  {
    invitationId: text('invitation_id').primaryKey(),
    organizationId: text('organization_id').notNull(),
    address: text('address').notNull(),
    role: text('role').notNull(),
    inviterAccountId: text('inviter_account_id').notNull(),
    digest: bytea('digest').notNull(),
    keyVersion: integer('key_version').notNull(),
    createdAt: instant('created_at').notNull(),
    expiresAt: instant('expires_at').notNull(),
  },
  (table) => [
    foreignKey({
      name: 'portcullis_invitations_organization_id_fkey',
      columns: [table.organizationId],
      foreignColumns: [organizationsTable.organizationId],
    }).onDelete('cascade'),
    foreignKey({
      name: 'portcullis_invitations_inviter_account_id_fkey',
      columns: [table.inviterAccountId],
      foreignColumns: [accountsTable.accountId],
    }).onDelete('cascade'),
    check('portcullis_invitations_id_check', sql`${table.invitationId} ~ '^[A-Za-z0-9_-]{22,64}$'`),
    check('portcullis_invitations_address_check', sql`octet_length(${table.address}) <= 254`),
    check('portcullis_invitations_digest_check', sql`octet_length(${table.digest}) = 32`),
    check('portcullis_invitations_key_version_check', sql`${table.keyVersion} >= 0`),
    check('portcullis_invitations_expires_at_check', sql`${table.expiresAt} > ${table.createdAt}`),
    // An organization's pending invitations, newest first.
    index('portcullis_invitations_organization_idx').on(table.organizationId, table.createdAt),
    // The cascade from an inviter's account.
    index('portcullis_invitations_inviter_idx').on(table.inviterAccountId),
  ],
)

// Pending requests to join (a verified domain in `automatic-suggestion` mode): one per organization and
// account; a decision deletes the row (an approval writes the membership in the same transaction).
export const joinRequestsTable = pgTable(
  'portcullis_join_requests',
  {
    requestId: text('request_id').primaryKey(),
    organizationId: text('organization_id').notNull(),
    accountId: text('account_id').notNull(),
    address: text('address').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (table) => [
    foreignKey({
      name: 'portcullis_join_requests_organization_id_fkey',
      columns: [table.organizationId],
      foreignColumns: [organizationsTable.organizationId],
    }).onDelete('cascade'),
    foreignKey({
      name: 'portcullis_join_requests_account_id_fkey',
      columns: [table.accountId],
      foreignColumns: [accountsTable.accountId],
    }).onDelete('cascade'),
    check('portcullis_join_requests_id_check', sql`${table.requestId} ~ '^[A-Za-z0-9_-]{22,64}$'`),
    check('portcullis_join_requests_address_check', sql`octet_length(${table.address}) <= 254`),
    // One pending request per organization and account (and the organization's count, under its lock).
    uniqueIndex('portcullis_join_requests_organization_account_key').on(
      table.organizationId,
      table.accountId,
    ),
    // An organization's pending requests, newest first.
    index('portcullis_join_requests_organization_idx').on(table.organizationId, table.createdAt),
    // An account's own requests, newest first, and the cascade from its deletion.
    index('portcullis_join_requests_account_idx').on(table.accountId, table.createdAt),
  ],
)

export type OrganizationRow = typeof organizationsTable.$inferSelect
export type MembershipRow = typeof membershipsTable.$inferSelect
export type InvitationRow = typeof invitationsTable.$inferSelect
export type JoinRequestRow = typeof joinRequestsTable.$inferSelect
