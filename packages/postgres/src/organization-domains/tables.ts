import { sql } from 'drizzle-orm'
import { check, foreignKey, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core'
import { instant } from '../columns/columns.js'
import { organizationsTable } from '../organizations/tables.js'

// The domains organizations claim, pending or verified by a DNS TXT challenge. A domain is verified for
// one organization at most (the partial unique index, which also serves the enrollment lookup by
// domain); pending claims of one domain by several organizations are allowed. A claim goes with its
// organization (on delete cascade).

export const organizationDomainsTable = pgTable(
  'portcullis_organization_domains',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id').notNull(),
    domain: text('domain').notNull(),
    token: text('token').notNull(),
    enrollment: text('enrollment').notNull(),
    createdAt: instant('created_at').notNull(),
    verifiedAt: instant('verified_at'),
    // The manager who chose the enrollment mode: automatic invitations are issued in their name.
    enrolledBy: text('enrolled_by'),
  },
  (table) => [
    foreignKey({
      name: 'portcullis_organization_domains_organization_id_fkey',
      columns: [table.organizationId],
      foreignColumns: [organizationsTable.organizationId],
    }).onDelete('cascade'),
    check('portcullis_organization_domains_id_check', sql`${table.id} ~ '^[A-Za-z0-9_-]{22,64}$'`),
    check('portcullis_organization_domains_token_check', sql`${table.token} ~ '^[A-Za-z0-9_-]{22,64}$'`),
    check(
      'portcullis_organization_domains_domain_check',
      sql`octet_length(${table.domain}) <= 253 and ${table.domain} = lower(${table.domain})`,
    ),
    check(
      'portcullis_organization_domains_enrollment_check',
      sql`${table.enrollment} in ('manual-invitation', 'automatic-invitation', 'automatic-suggestion')`,
    ),
    // An organization's claims (listed oldest first), its existing claim of a domain, and the cascade.
    uniqueIndex('portcullis_organization_domains_organization_domain_key').on(
      table.organizationId,
      table.domain,
    ),
    // One verified claim per domain; the enrollment lookup by a person's address domains.
    uniqueIndex('portcullis_organization_domains_verified_key')
      .on(table.domain)
      .where(sql`${table.verifiedAt} is not null`),
  ],
)
