import type { Invitation, Membership, Organization } from '@portcullis/core/organizations'
import type { InvitationRow, MembershipRow, OrganizationRow } from './tables.js'

export function organizationOf(row: OrganizationRow): Organization {
  return Object.freeze({
    organizationId: row.organizationId,
    name: row.name,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  })
}

export function membershipOf(row: MembershipRow): Membership {
  return Object.freeze({
    organizationId: row.organizationId,
    accountId: row.accountId,
    role: row.role,
    joinedAt: row.joinedAt,
    updatedAt: row.updatedAt,
  })
}

export function invitationOf(row: InvitationRow): Invitation {
  return Object.freeze({
    invitationId: row.invitationId,
    organizationId: row.organizationId,
    address: row.address,
    role: row.role,
    inviterAccountId: row.inviterAccountId,
    keyVersion: row.keyVersion,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
  })
}
