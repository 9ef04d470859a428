import {
  createOrganizationDomains,
  type DnsTxtResolver,
  MemoryOrganizationDomainStore,
} from '@portcullis/core/organization-domains'
import { organizationBase } from './organization-world.js'
import type { AdapterScenario } from './scenario.js'

/**
 * The TXT records the world's resolver answers, by name: the `DnsTxtResolver` port over a table the
 * case writes (what an organization's DNS administrator publishes). The lookups themselves are tested
 * against a real DNS server with the core; these cases are about what the routes answer over HTTP.
 */
export class PublishedRecords implements DnsTxtResolver {
  readonly #records = new Map<string, string[][]>()

  publish(name: string, text: string): void {
    this.#records.set(name.toLowerCase(), [[text]])
  }

  async resolveTxt(name: string): Promise<readonly (readonly string[])[]> {
    return this.#records.get(name.toLowerCase()) ?? []
  }
}

/**
 * The organization-domain world: the organization base (local accounts, a memory organization store
 * whose memberships the routes read, real invitations), the domain flows over a memory domain store
 * with a small free-mail list, and the local-account and organization-domain routes.
 */
export function organizationDomainWorld() {
  const base = organizationBase()
  const records = new PublishedRecords()
  const domains = createOrganizationDomains({
    store: new MemoryOrganizationDomainStore(),
    freeMailDomains: new Set(['gmail.com', 'outlook.com']),
    resolver: records,
  })
  const { local, accounts, organizations } = base
  const scenario: AdapterScenario = {
    security: { mechanisms: local.mechanisms, openapi: { info: { title: 'Domains', version: '1' } } },
    routes: [],
    local,
    organizationDomains: { local, domains, memberships: organizations, accounts },
  }
  return { scenario, records, signIn: base.signIn, organization: base.organization, join: base.join }
}
