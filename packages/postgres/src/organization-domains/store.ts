import { ConfigurationError } from '@portcullis/core'
import {
  type ClaimDomainOutcome,
  type ClaimDomainRequest,
  type DomainClaimRequest,
  type DomainEnrollmentMode,
  type ListDomainsRequest,
  type MarkDomainVerifiedOutcome,
  type MarkDomainVerifiedRequest,
  OrganizationDomainError,
  OrganizationDomainErrorCodes,
  type OrganizationDomainRecord,
  type OrganizationDomainStore,
  organizationDomainRecord,
  type SetDomainEnrollmentRequest,
  validateDomainClaimHandle,
  validateDomainClaimRequest,
  validateListDomainsRequest,
  validateMarkDomainVerifiedRequest,
  validateSetDomainEnrollmentRequest,
} from '@portcullis/core/organization-domains'
import { and, asc, count, eq, inArray, isNotNull, isNull, ne, sql } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import type pg from 'pg'
import { sqlStateOf } from '../client/database-error.js'
import type { PostgresClient } from '../client/postgres-client.js'
import { inStatement, inTransaction } from '../client/transaction.js'
import { organizationDomainsTable } from './tables.js'

export interface PostgresOrganizationDomainStoreOptions {
  /** From `createPostgresClient` (directly or through a pooler in transaction mode); run `migrate(client)` first. */
  readonly client: Pick<PostgresClient, 'db' | 'pool'>
}

type Row = typeof organizationDomainsTable.$inferSelect

const VERIFIED_KEY = 'portcullis_organization_domains_verified_key'

function recordOf(row: Row): OrganizationDomainRecord {
  const { enrolledBy, ...rest } = row
  return organizationDomainRecord({
    ...rest,
    enrollment: rest.enrollment as DomainEnrollmentMode,
    ...(enrolledBy === null ? {} : { enrolledBy }),
  })
}

function constraintOf(error: unknown): unknown {
  let current = error as { constraint?: unknown; cause?: unknown } | undefined
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    if (current.constraint !== undefined) return current.constraint
    current = current.cause as typeof current
  }
  return undefined
}

/** A duplicate claim id or an unknown organization is `invalid_input`; anything else passes through. */
function claimError(error: unknown): unknown {
  const state = sqlStateOf(error)
  const name = constraintOf(error)
  if (state === '23505' && name === 'portcullis_organization_domains_pkey') {
    return new OrganizationDomainError(
      OrganizationDomainErrorCodes.invalidInput,
      'a claim with this id is already stored',
    )
  }
  if (state === '23503' && name === 'portcullis_organization_domains_organization_id_fkey') {
    return new OrganizationDomainError(
      OrganizationDomainErrorCodes.invalidInput,
      'claim.organizationId names no organization',
    )
  }
  return error
}

/**
 * The durable `OrganizationDomainStore` (`portcullis_organization_domains`). `claim` is one transaction
 * under a transaction-scoped advisory lock of the organization, so claims racing on any number of
 * instances never pass its limit. At most one claim per domain is verified: `markVerified` is one
 * conditional UPDATE, and the partial unique index on the verified domain turns the loser of two
 * organizations verifying at once into `taken`. No session state is used, so it works through a pooler
 * in transaction mode. A claim goes with its organization (on delete cascade).
 */
export class PostgresOrganizationDomainStore implements OrganizationDomainStore {
  readonly #db: NodePgDatabase
  readonly #pool: pg.Pool

  constructor(options: PostgresOrganizationDomainStoreOptions) {
    const client = options?.client
    if (typeof client?.db?.transaction !== 'function' || typeof client.pool?.connect !== 'function') {
      throw new ConfigurationError(
        'organization_domains.store_options',
        'PostgresOrganizationDomainStore needs a client from createPostgresClient',
      )
    }
    this.#db = client.db
    this.#pool = client.pool
  }

  async claim(request: ClaimDomainRequest): Promise<ClaimDomainOutcome> {
    const { claim, maxPerOrganization } = validateDomainClaimRequest(request)
    const table = organizationDomainsTable
    return inTransaction(this.#pool, async (tx): Promise<ClaimDomainOutcome> => {
      try {
        await tx.execute(
          sql`select pg_advisory_xact_lock(hashtextextended(${`portcullis-organization-domains:${claim.organizationId}`}, 0))`,
        )
        const [existing] = await tx
          .select()
          .from(table)
          .where(and(eq(table.organizationId, claim.organizationId), eq(table.domain, claim.domain)))
        if (existing !== undefined) return { outcome: 'existing', claim: recordOf(existing) }
        const [elsewhere] = await tx
          .select({ id: table.id })
          .from(table)
          .where(
            and(
              eq(table.domain, claim.domain),
              isNotNull(table.verifiedAt),
              ne(table.organizationId, claim.organizationId),
            ),
          )
        if (elsewhere !== undefined) return { outcome: 'taken' }
        const [held] = await tx
          .select({ count: count() })
          .from(table)
          .where(eq(table.organizationId, claim.organizationId))
        if ((held?.count ?? 0) >= maxPerOrganization) return { outcome: 'limit-reached' }
        await tx.insert(table).values({ ...claim, enrolledBy: claim.enrolledBy ?? null })
        return { outcome: 'claimed', claim }
      } catch (error) {
        throw claimError(error)
      }
    })
  }

  async markVerified(request: MarkDomainVerifiedRequest): Promise<MarkDomainVerifiedOutcome> {
    const { organizationId, id, token, now } = validateMarkDomainVerifiedRequest(request)
    const table = organizationDomainsTable
    const own = and(eq(table.id, id), eq(table.organizationId, organizationId), eq(table.token, token))
    return inStatement(async (): Promise<MarkDomainVerifiedOutcome> => {
      try {
        const [marked] = await this.#db
          .update(table)
          .set({ verifiedAt: now })
          .where(and(own, isNull(table.verifiedAt)))
          .returning()
        if (marked !== undefined) return { outcome: 'verified', claim: recordOf(marked) }
      } catch (error) {
        // Another organization's claim of the domain is verified (or became so while this one waited).
        if (sqlStateOf(error) === '23505' && constraintOf(error) === VERIFIED_KEY) return { outcome: 'taken' }
        throw error
      }
      const [row] = await this.#db.select().from(table).where(own)
      if (row === undefined || row.verifiedAt === null) return { outcome: 'not-found' }
      return { outcome: 'verified', claim: recordOf(row) }
    })
  }

  async setEnrollment(request: SetDomainEnrollmentRequest): Promise<OrganizationDomainRecord | null> {
    const { organizationId, id, enrollment, enrolledBy } = validateSetDomainEnrollmentRequest(request)
    const table = organizationDomainsTable
    const [row] = await inStatement(() =>
      this.#db
        .update(table)
        .set({ enrollment, enrolledBy: enrolledBy ?? null })
        .where(and(eq(table.id, id), eq(table.organizationId, organizationId)))
        .returning(),
    )
    return row === undefined ? null : recordOf(row)
  }

  async remove(request: DomainClaimRequest): Promise<boolean> {
    const { organizationId, id } = validateDomainClaimHandle(request)
    const table = organizationDomainsTable
    const removed = await inStatement(() =>
      this.#db.delete(table).where(and(eq(table.id, id), eq(table.organizationId, organizationId))),
    )
    return (removed.rowCount ?? 0) > 0
  }

  async list(request: ListDomainsRequest): Promise<readonly OrganizationDomainRecord[]> {
    const query = validateListDomainsRequest(request)
    const table = organizationDomainsTable
    if ('organizationId' in query) {
      const rows = await inStatement(() =>
        this.#db
          .select()
          .from(table)
          .where(eq(table.organizationId, query.organizationId))
          .orderBy(asc(table.createdAt), sql`${table.id} collate "C"`),
      )
      return rows.map(recordOf)
    }
    if (query.verifiedDomains.length === 0) return []
    const rows = await inStatement(() =>
      this.#db
        .select()
        .from(table)
        .where(and(inArray(table.domain, [...query.verifiedDomains]), isNotNull(table.verifiedAt))),
    )
    const byDomain = new Map(rows.map((row) => [row.domain, recordOf(row)]))
    return query.verifiedDomains.flatMap((domain) => byDomain.get(domain) ?? [])
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'PostgresOrganizationDomainStore {}'
  }
}
