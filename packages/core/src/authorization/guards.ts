import { ConfigurationError, type OptionsShape, readOptions } from '../errors/index.js'
import type { GuardContext } from './context.js'
import { type Guard, leafGuard } from './guard.js'
import { configuredName, configuredNames } from './names.js'

const INVALID = 'authorization.invalid_guard'
const DEFAULT_TENANT_PARAMETER = 'tenantId'

/** Grants any authenticated principal; anonymous -> 401. */
export function requiresAuthenticated(): Guard {
  return leafGuard('authenticated', 'authorization.authentication_required', [], () => true)
}

/** Grants when the effective snapshot holds `role`. */
export function requiresRole(role: string): Guard {
  const name = configuredName(INVALID, 'requiresRole role', role)
  return leafGuard(`role(${name})`, 'authorization.missing_role', [], ({ snapshot }) =>
    snapshot.hasRole(name),
  )
}

/** Grants when the effective snapshot holds `scope`. */
export function requiresScope(scope: string): Guard {
  const name = configuredName(INVALID, 'requiresScope scope', scope)
  return leafGuard(`scope(${name})`, 'authorization.missing_scope', [], ({ snapshot }) =>
    snapshot.hasScope(name),
  )
}

/** Grants when the effective snapshot holds `capability`. */
export function requiresCapability(capability: string): Guard {
  const name = configuredName(INVALID, 'requiresCapability capability', capability)
  return leafGuard(`capability(${name})`, 'authorization.missing_capability', [], ({ snapshot }) =>
    snapshot.hasCapability(name),
  )
}

/** Grants when the principal is in `team`. */
export function requiresTeam(team: string): Guard {
  const name = configuredName(INVALID, 'requiresTeam team', team)
  return leafGuard(`team(${name})`, 'authorization.missing_team', [], ({ snapshot }) => snapshot.inTeam(name))
}

/** The tenant named by the path parameter, or undefined when absent or not a single segment. */
function pathTenant(context: GuardContext, parameter: string): string | undefined {
  const value = Object.hasOwn(context.params, parameter) ? context.params[parameter] : undefined
  return typeof value === 'string' && value.length > 0 ? value : undefined
}

export interface TenantGuardOptions {
  /** The route path parameter holding the tenant id. Default `tenantId`. */
  readonly tenantParameter?: string
}

const TENANT_OPTIONS: OptionsShape<TenantGuardOptions> = {
  tenantParameter: { kind: 'string', code: INVALID },
}

/**
 * Grants when the tenant named by the path parameter is in the snapshot. The tenant comes from the parsed
 * path only and is compared with server-resolved data, so changing the path cannot grant access.
 */
export function requiresTenant(options: TenantGuardOptions = {}): Guard {
  readOptions(options, 'requiresTenant', TENANT_OPTIONS)
  const parameter = configuredName(
    INVALID,
    'tenantParameter',
    options.tenantParameter ?? DEFAULT_TENANT_PARAMETER,
  )
  return leafGuard(`tenant(:${parameter})`, 'authorization.missing_tenant', [parameter], (context) => {
    const tenant = pathTenant(context, parameter)
    return tenant !== undefined && context.snapshot.inTenant(tenant)
  })
}

export interface TenantRoleGuardOptions extends TenantGuardOptions {
  /** Any one of these roles in the path's tenant grants access. At least one; no duplicates. */
  readonly roles: Iterable<string>
}

const TENANT_ROLE_OPTIONS: OptionsShape<TenantRoleGuardOptions> = {
  ...TENANT_OPTIONS,
  roles: { required: true, kind: 'iterable', code: INVALID },
}

/**
 * Grants when the snapshot holds one of `roles` in the tenant named by the path parameter. Role in a
 * tenant implies membership of that tenant.
 */
export function requiresTenantRole(options: TenantRoleGuardOptions): Guard {
  readOptions(options, 'requiresTenantRole', TENANT_ROLE_OPTIONS)
  const parameter = configuredName(
    INVALID,
    'tenantParameter',
    options.tenantParameter ?? DEFAULT_TENANT_PARAMETER,
  )
  if (options.roles === undefined || typeof options.roles === 'string') {
    throw new ConfigurationError(INVALID, 'requiresTenantRole roles must be a list of role names')
  }
  const roles = configuredNames(INVALID, 'requiresTenantRole roles', [...options.roles])
  const key = `tenantRole(:${parameter},${[...roles].sort().join('|')})`
  return leafGuard(key, 'authorization.missing_tenant_role', [parameter], (context) => {
    const tenant = pathTenant(context, parameter)
    return tenant !== undefined && context.snapshot.hasTenantRole(tenant, roles)
  })
}
