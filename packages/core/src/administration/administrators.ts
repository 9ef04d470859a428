import type { Guard } from '../authorization/guard.js'
import { requiresCapability, requiresRole } from '../authorization/guards.js'
import type { AuthorizationSnapshot } from '../authorization/snapshot.js'
import { ConfigurationError } from '../errors/portcullis-error.js'

/** The step-up purpose every administrative change consumes (a one-use credential of the administrator). */
export const ADMINISTRATION_STEP_UP_PURPOSE = 'administration'

/**
 * Who is an administrator: the holders of a role, or of a capability, in the authorization snapshot
 * (what the application's `authorizationResolver` loads for the verified principal).
 */
export type AdministratorRule = { readonly role: string } | { readonly capability: string }

/** By default, the holders of the `admin` role. */
export const DEFAULT_ADMINISTRATOR_RULE: AdministratorRule = Object.freeze({ role: 'admin' })

/** A checked copy of `rule`; anything else is `administration.options` (a configuration error). */
export function administratorRule(rule: unknown = DEFAULT_ADMINISTRATOR_RULE): AdministratorRule {
  const fields = (typeof rule === 'object' && rule !== null ? rule : {}) as Record<string, unknown>
  const keys = Object.keys(fields)
  if (keys.length === 1 && typeof fields.role === 'string' && fields.role.length > 0) {
    return Object.freeze({ role: fields.role })
  }
  if (keys.length === 1 && typeof fields.capability === 'string' && fields.capability.length > 0) {
    return Object.freeze({ capability: fields.capability })
  }
  throw new ConfigurationError(
    'administration.options',
    'administrators must be { role: name } or { capability: name }',
    { option: 'administrators' },
  )
}

/**
 * Whether the snapshot makes its principal an administrator under `rule` (default: the `admin` role).
 * Other capabilities use it to treat administrators apart (an administrator is never impersonated
 * without a capability of its own).
 */
export function isAdministrator(
  snapshot: AuthorizationSnapshot,
  rule: AdministratorRule = DEFAULT_ADMINISTRATOR_RULE,
): boolean {
  const checked = administratorRule(rule)
  return 'role' in checked ? snapshot.hasRole(checked.role) : snapshot.hasCapability(checked.capability)
}

/** The route guard of the administration routes: the rule's role or capability, else 403. */
export function administratorGuard(rule: AdministratorRule = DEFAULT_ADMINISTRATOR_RULE): Guard {
  const checked = administratorRule(rule)
  return 'role' in checked ? requiresRole(checked.role) : requiresCapability(checked.capability)
}
