import { randomUUID } from 'node:crypto'
import {
  generateDomainHandle,
  type OrganizationDomainRecord,
  type OrganizationDomainStore,
} from '@portcullis/core/organization-domains'

/** One case's stores; every case uses fresh organizations and domains, so stores may share a database. */
export interface OrganizationDomainStoreFixture {
  readonly store: OrganizationDomainStore
  /**
   * A second instance over the same data (another connection pool, as another app instance has); the
   * race cases split their calls between the two. `store` itself when omitted.
   */
  readonly peer?: OrganizationDomainStore
  /** Makes an organization claims may name (a Postgres store checks the foreign key); its id. */
  createOrganization(): Promise<string>
  /** Deletes an organization the way the application does; when given, its claims must go with it. */
  deleteOrganization?(organizationId: string): Promise<void>
  dispose?(): Promise<void> | void
}

export type OrganizationDomainStoreFactory = () =>
  | OrganizationDomainStoreFixture
  | Promise<OrganizationDomainStoreFixture>

export const T0 = new Date('2031-05-06T07:08:09.000Z')
export const at = (milliseconds: number): Date => new Date(T0.getTime() + milliseconds)

/** A domain nobody else in the run uses: `d<random>.example`. */
export function freshDomain(): string {
  return `d${randomUUID().replaceAll('-', '').slice(0, 20)}.example`
}

/** A pending claim of `domain` by `organizationId`. */
export function newClaim(
  organizationId: string,
  domain: string = freshDomain(),
  fields: Partial<OrganizationDomainRecord> = {},
): OrganizationDomainRecord {
  return {
    id: generateDomainHandle(16),
    organizationId,
    domain,
    token: generateDomainHandle(32),
    enrollment: 'manual-invitation',
    createdAt: T0,
    verifiedAt: null,
    ...fields,
  }
}

export function sameClaim(
  record: OrganizationDomainRecord | undefined,
  claim: OrganizationDomainRecord,
): boolean {
  return (
    record !== undefined &&
    record.id === claim.id &&
    record.organizationId === claim.organizationId &&
    record.domain === claim.domain &&
    record.token === claim.token &&
    record.enrollment === claim.enrollment &&
    record.createdAt.getTime() === claim.createdAt.getTime() &&
    (record.verifiedAt?.getTime() ?? null) === (claim.verifiedAt?.getTime() ?? null)
  )
}

/** The `code` of a rejection, or `resolved` when the call succeeded. */
export async function codeOf(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => 'resolved',
    (error: unknown) => String((error as { code?: unknown }).code ?? (error as Error).message),
  )
}
