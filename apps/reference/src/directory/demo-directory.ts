import type { AuthorizationResolver, AuthorizationSnapshotInit } from '@portcullis/core/authorization'
import { UnverifiedAddresses } from '../account-email/address-banner.js'
import { AccountNames } from './account-names.js'

/** A demo tenant (an organisation the demo users belong to). */
export interface DemoTenant {
  readonly id: string
  readonly name: string
  readonly plan: string
  readonly seats: number
}

/** A demo user: the same person at the demo OpenID Provider (subject = username) and in this app. */
export interface DemoUser {
  readonly username: string
  readonly displayName: string
  readonly scopes: readonly string[]
  /** Tenant id -> its role there: the demo seed's memberships (the first role is the membership's). */
  readonly tenants: Readonly<Record<string, readonly string[]>>
  /** One line for the console and the home page. */
  readonly summary: string
  /** Roles in the app itself (`admin`: the administration pages). */
  readonly roles?: readonly string[]
}

/** A demo service: what a workload token (or a service API key) may do at most. */
export interface DemoService {
  readonly id: string
  readonly scopes: readonly string[]
  readonly tenants: Readonly<Record<string, readonly string[]>>
}

export const DEMO_TENANTS: readonly DemoTenant[] = [
  { id: 'acme', name: 'Acme Corporation', plan: 'enterprise', seats: 120 },
  { id: 'globex', name: 'Globex', plan: 'team', seats: 25 },
  { id: 'initech', name: 'Initech', plan: 'starter', seats: 8 },
]

export const DEMO_USERS: readonly DemoUser[] = [
  {
    username: 'alice',
    displayName: 'Alice Archer',
    scopes: ['reports:read', 'keys:manage'],
    tenants: { acme: ['owner'], globex: ['viewer'] },
    summary: 'owner of acme, viewer of globex',
    roles: ['admin'],
  },
  {
    username: 'bob',
    displayName: 'Bob Baker',
    scopes: ['reports:read', 'keys:manage'],
    tenants: { globex: ['owner'], acme: ['billing'] },
    summary: 'owner of globex, billing of acme',
  },
  {
    username: 'carol',
    displayName: 'Carol Chen',
    scopes: ['keys:manage'],
    tenants: { initech: ['owner'] },
    summary: 'owner of initech, no reports:read scope',
  },
]

export const DEMO_SERVICES: readonly DemoService[] = [
  { id: 'svc-reporting', scopes: ['reports:read'], tenants: { acme: ['billing'], globex: ['billing'] } },
]

/** A demo invoice of a tenant (the billing page and the MCP tenant projection show the same data). */
export interface DemoInvoice {
  readonly id: string
  readonly month: string
  readonly amountCents: number
}

/** Three months of invoices, derived from the tenant so every run shows the same numbers. */
export function demoInvoices(tenant: DemoTenant): readonly DemoInvoice[] {
  const rate = tenant.plan === 'enterprise' ? 1200 : tenant.plan === 'team' ? 900 : 700
  return ['2025-01', '2025-02', '2025-03'].map((month, index) => ({
    id: `${tenant.id.toUpperCase()}-${month}`,
    month,
    amountCents: tenant.seats * rate + index * 100,
  }))
}

/** Roles a tenant grants, strongest first. */
export const TENANT_ROLES = ['owner', 'billing', 'viewer'] as const

/**
 * Who is who: demo users by account id, demo services by id. The demo users' local accounts
 * (`demo-<username>`) are bound when the app seeds them; accounts created on the sign-up page are users
 * without grants.
 */
export class DemoDirectory {
  /** What the pages call accounts that are not demo users (a username, a provider's email). */
  readonly names = new AccountNames()
  /** Whether a signed-in account's primary address waits for verification (the pages' banner). */
  readonly addresses = new UnverifiedAddresses()
  readonly #accounts = new Map<string, DemoUser>()
  readonly #services = new Map(DEMO_SERVICES.map((service) => [service.id, service]))

  /** Makes `accountId` the account of the demo user `username`. */
  bind(accountId: string, username: string): void {
    const user = DEMO_USERS.find((candidate) => candidate.username === username)
    if (user === undefined) throw new Error(`no demo user ${username}`)
    this.#accounts.set(accountId, user)
  }

  user(accountId: string): DemoUser | undefined {
    return this.#accounts.get(accountId)
  }

  service(id: string): DemoService | undefined {
    return this.#services.get(id)
  }

  tenant(id: string): DemoTenant | undefined {
    return DEMO_TENANTS.find((tenant) => tenant.id === id)
  }

  /**
   * The directory's part of the `authorizationResolver`: scopes, app roles and the services' tenants; a
   * user the directory does not know (signed up) has none; unknown services are refused (401). Users'
   * tenants are their memberships (`membershipResolver` over the organization store, which the demo
   * seed fills from `DemoUser.tenants`), never this list.
   */
  resolver(): AuthorizationResolver {
    return ({ principal }): AuthorizationSnapshotInit | null => {
      const grants = principal.kind === 'user' ? this.user(principal.id) : this.service(principal.id)
      if (grants === undefined) return principal.kind === 'user' ? { scopes: [], tenants: {} } : null
      return {
        scopes: [...grants.scopes],
        ...('roles' in grants && grants.roles !== undefined ? { roles: [...grants.roles] } : {}),
        tenants: principal.kind === 'user' ? {} : grants.tenants,
        ...('username' in grants ? { attributes: { username: grants.username } } : {}),
      }
    }
  }
}
