// The authorization resolver loads grants for the verified principal, once per authenticated request.
// Answer null for an unknown or disabled principal (401); throw when the grant store is down (503).
import type { AuthorizationResolver } from '@portcullis/core/authorization'

interface Membership {
  readonly tenantId: string
  readonly roles: readonly string[]
}

interface GrantStore {
  account(id: string): Promise<{ disabled: boolean; roles: string[]; memberships: Membership[] } | undefined>
}

// #region the-authorization-snapshot
export function resolverFor(store: GrantStore): AuthorizationResolver {
  return async ({ principal }) => {
    if (principal.kind === 'service') return { scopes: ['reports:read', 'reports:write'] }
    const account = await store.account(principal.id)
    if (account === undefined || account.disabled) return null
    return {
      roles: account.roles,
      tenants: new Map(account.memberships.map((m) => [m.tenantId, m.roles])),
      attributes: { membershipCount: account.memberships.length },
    }
  }
}
// #endregion the-authorization-snapshot
