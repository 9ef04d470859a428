import {
  createOrganizationDomains,
  type DomainEnrollmentMode,
  MemoryOrganizationDomainStore,
  OrganizationJoinRequests,
} from '@portcullis/core/organization-domains'
import { PublishedRecords } from './organization-domain-world.js'
import { organizationBase } from './organization-world.js'
import type { AdapterScenario } from './scenario.js'

/**
 * The join-request world: the organization base (local accounts, a memory organization store that also
 * holds the requests to join, real invitations), verified domains over a memory domain store, the
 * `OrganizationJoinRequests` flows, and the local-account and organization-domain routes with them.
 */
export function joinRequestWorld() {
  const base = organizationBase()
  const records = new PublishedRecords()
  const domains = createOrganizationDomains({
    store: new MemoryOrganizationDomainStore(),
    freeMailDomains: new Set(['gmail.com']),
    resolver: records,
  })
  const { local, accounts, store } = base
  const joinRequests = new OrganizationJoinRequests({ domains, store, accounts, clock: base.clock })
  const scenario: AdapterScenario = {
    security: { mechanisms: local.mechanisms, openapi: { info: { title: 'Join requests', version: '1' } } },
    routes: [],
    local,
    organizationDomains: { local, domains, memberships: store, accounts, joinRequests },
  }
  /** An organization of `owner` holding `domain` verified (its TXT record published) in `enrollment`. */
  const organizationWithDomain = async (
    organizationId: string,
    owner: string,
    domain: string,
    enrollment: DomainEnrollmentMode,
  ) => {
    await base.organization(organizationId, owner)
    const claimed = await domains.claim({ organizationId, domain, enrollment, managerAccountId: owner })
    records.publish(claimed.recordName, claimed.recordValue)
    await domains.verify({ organizationId, id: claimed.claim.id })
  }
  const roleIn = async (organizationId: string, accountId: string) =>
    (await store.membershipsOf(accountId)).find((item) => item.organizationId === organizationId)?.role
  return { ...base, scenario, organizationWithDomain, roleIn }
}
