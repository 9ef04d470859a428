import { describe, expect, it } from 'vitest'
import { OrganizationPermissions, OrganizationRoles, OWNER_ROLE } from './roles.js'

const ALL = Object.values(OrganizationPermissions)
const refused = (roles: unknown) => {
  try {
    new OrganizationRoles(roles as never)
    return 'accepted'
  } catch (error) {
    return (error as { code?: string }).code
  }
}

describe('OrganizationRoles', () => {
  it('ranks the defaults owner > admin > member and compares at-or-below', () => {
    const roles = OrganizationRoles.defaults
    expect(roles.roles.map((role) => role.name)).toEqual(['owner', 'admin', 'member'])
    expect(roles.atOrBelow('admin', 'admin')).toBe(true)
    expect(roles.atOrBelow('admin', 'owner')).toBe(false)
    expect(roles.atOrBelow('member', 'admin')).toBe(false)
    expect(roles.atOrBelow('emperor', 'member')).toBe(false)
    expect(roles.atOrBelow('owner', 'emperor')).toBe(false)
    expect(roles.allows('admin', OrganizationPermissions.manageMembers)).toBe(true)
    expect(roles.allows('admin', OrganizationPermissions.delete)).toBe(false)
    expect(roles.allows('member', OrganizationPermissions.invite)).toBe(false)
  })

  it('refuses a catalogue without a sole top-ranked owner holding every store permission, or with bad roles', () => {
    const owner = { name: OWNER_ROLE, rank: 10, permissions: ALL }
    expect(refused([owner, { name: 'viewer', rank: 1, permissions: ['reports.read'] }])).toBe('accepted')
    expect(refused([])).toBe('organizations.invalid_roles')
    expect(refused([{ name: 'admin', rank: 5, permissions: ALL }])).toBe('organizations.invalid_roles')
    expect(refused([{ ...owner, permissions: [OrganizationPermissions.invite] }])).toBe(
      'organizations.invalid_roles',
    )
    expect(refused([owner, { name: 'co-owner', rank: 10, permissions: [] }])).toBe(
      'organizations.invalid_roles',
    )
    expect(refused([owner, { name: 'x', rank: 1.5, permissions: [] }])).toBe('organizations.invalid_roles')
    expect(refused([owner, { name: ' padded', rank: 1, permissions: [] }])).toBe(
      'organizations.invalid_roles',
    )
    expect(refused([owner, { name: 'x', rank: 1, permissions: ['bad\u0000name'] }])).toBe(
      'organizations.invalid_roles',
    )
    expect(refused([owner, owner])).toBe('organizations.invalid_roles')
  })
})
