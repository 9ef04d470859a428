import type {
  AccountOrganization,
  Invitation,
  Membership,
  Organization,
} from '@portcullis/core/organizations'
import { HttpProblem } from '../problem/problem.js'

// The request fields and JSON answers of the organization routes: ids, names, roles, addresses and
// times only. An invitation's code and digest are never in a body (the code is only in its mail).

/**
 * The string members of a JSON or form body: the `required` ones present, nothing outside `required`
 * and `optional` (a `role` smuggled into a body that takes none is refused, never read). A refusal is
 * 400 with `code`; its detail names the member, never the value.
 */
export function fieldsOf<Required extends string, Optional extends string>(
  body: unknown,
  required: readonly Required[],
  optional: readonly Optional[],
  code: string,
): Record<Required, string> & Partial<Record<Optional, string>> {
  const invalid = (detail: string) => new HttpProblem({ status: 400, code, detail })
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('the body must be a JSON object or a form')
  }
  const known = new Set<string>([...required, ...optional])
  const fields: Record<string, string> = {}
  for (const [name, value] of Object.entries(body)) {
    if (!known.has(name)) throw invalid(`${name} is not a member of this request`)
    if (typeof value !== 'string') throw invalid(`${name} must be a string`)
    fields[name] = value
  }
  for (const name of required) if (fields[name] === undefined) throw invalid(`${name} is required`)
  return fields as Record<Required, string> & Partial<Record<Optional, string>>
}

export function organizationBody(organization: Organization): Record<string, unknown> {
  return {
    organizationId: organization.organizationId,
    name: organization.name,
    createdAt: organization.createdAt.toISOString(),
  }
}

export function membershipBody(membership: Membership): Record<string, unknown> {
  return {
    organizationId: membership.organizationId,
    accountId: membership.accountId,
    role: membership.role,
    joinedAt: membership.joinedAt.toISOString(),
  }
}

export function accountOrganizationBody(entry: AccountOrganization): Record<string, unknown> {
  return { ...membershipBody(entry), name: entry.organizationName }
}

export function invitationBody(invitation: Invitation): Record<string, unknown> {
  return {
    invitationId: invitation.invitationId,
    organizationId: invitation.organizationId,
    address: invitation.address,
    role: invitation.role,
    inviterAccountId: invitation.inviterAccountId,
    createdAt: invitation.createdAt.toISOString(),
    expiresAt: invitation.expiresAt.toISOString(),
  }
}
