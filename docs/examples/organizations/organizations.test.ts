// Organizations, as docs/organizations.md shows them: the role catalogue, the stores (memory with the
// accounts, and Postgres on two instances), an invitation mailed, accepted by the verified address, the
// resolver that fills the tenant guard, and a removed member refused on another instance.
import { randomBytes, randomUUID } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { AuthorizationSnapshot, requiresTenantRole } from '@portcullis/core/authorization'
import { CodeKeyRing } from '@portcullis/core/codes'
import { MemoryMailOutbox, openOutboxMessage } from '@portcullis/core/mail'
import {
  MemoryOrganizationStore,
  membershipResolver,
  OrganizationInvitations,
  OrganizationPermissions,
  OrganizationRoles,
} from '@portcullis/core/organizations'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { MemoryRevocationNotices } from '@portcullis/core/revocation'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresOrganizationStore,
  PostgresRevocationNotices,
} from '@portcullis/postgres'
import { afterAll, expect, it } from 'vitest'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('docs-1', randomBytes(32)),
})
const keyRing = new CodeKeyRing({ version: 1, secret: randomBytes(32) })

it('keeps roles as data, with a rank', () => {
  // #region roles
  const roles = new OrganizationRoles([
    { name: 'owner', rank: 300, permissions: Object.values(OrganizationPermissions) },
    {
      name: 'admin',
      rank: 200,
      permissions: [OrganizationPermissions.manageMembers, OrganizationPermissions.invite],
    },
    { name: 'billing', rank: 150, permissions: ['invoices.read', 'invoices.pay'] },
    { name: 'member', rank: 100, permissions: [] },
  ])
  // #endregion roles
  expect(roles.atOrBelow('admin', 'billing')).toBe(true)
  expect(roles.atOrBelow('billing', 'admin')).toBe(false)
  expect(() => new OrganizationRoles([{ name: 'admin', rank: 1, permissions: [] }])).toThrow(/owner/)
})

it('invites by email, accepts with the verified address, and fills the tenant guard', async () => {
  // #region memory
  const notices = new MemoryRevocationNotices()
  const outbox = new MemoryMailOutbox()
  const organizations = new MemoryOrganizationStore({ notices, outbox })
  const accounts = new MemoryAccountStore({ cascade: [organizations], notices, outbox })
  // #endregion memory
  const now = new Date()
  const ownerId = randomUUID()
  await accounts.createAccount({ accountId: ownerId, username: 'ada', passwordHash: HASH, now })
  // #region create
  await organizations.createOrganization({
    organizationId: 'acme',
    name: 'Acme',
    ownerAccountId: ownerId,
    now,
  })
  // #endregion create

  // #region invite
  const invitations = new OrganizationInvitations({
    invitations: organizations,
    organizations,
    memberships: organizations,
    keyRing,
    protector,
    publicOrigin: 'https://app.example',
  })
  const invitation = await invitations.invite({
    organizationId: 'acme',
    inviterAccountId: ownerId, // from the verified principal, never from the body
    address: 'grace@example.com',
    role: 'admin',
  })
  // #endregion invite
  const [row] = outbox.pending()
  if (row === undefined) throw new Error('no mail')
  const mail = await openOutboxMessage(protector, row)
  if (mail.kind !== 'invitation') throw new Error(mail.kind)
  const graceId = randomUUID()
  await accounts.createAccount({ accountId: graceId, username: 'grace', passwordHash: HASH, now })
  await accounts.addEmailAddress({ accountId: graceId, address: 'grace@example.com', now })
  await expect(
    invitations.accept({ invitationId: invitation.invitationId, code: mail.code, accountId: graceId }),
  ).rejects.toMatchObject({
    code: 'organizations.address_mismatch',
  })
  await accounts.verifyEmailAddress({ accountId: graceId, address: 'grace@example.com', now })
  // #region accept
  const membership = await invitations.accept({
    invitationId: invitation.invitationId, // the link's `flow`
    code: mail.code, // the link's fragment, or typed
    accountId: graceId, // the signed-in account: it must hold the address, verified
  })
  // #endregion accept
  expect(membership.role).toBe('admin')

  // #region resolver
  const resolver = membershipResolver({ memberships: organizations, notices })
  const adminsOnly = requiresTenantRole({ tenantParameter: 'org', roles: ['owner', 'admin'] })
  // createSecurity({ authorizationResolver: resolver, ... }); route: { path: '/orgs/:org/settings', guards: [adminsOnly] }
  // #endregion resolver
  const request = { principal: { id: graceId, kind: 'user' as const }, evidence: [] }
  const snapshotOf = async () => AuthorizationSnapshot.from((await resolver(request)) ?? {})
  const check = async (org: string) =>
    adminsOnly.check({
      principal: request.principal,
      snapshot: await snapshotOf(),
      evidence: [],
      params: { org },
    }).granted
  expect(await check('acme')).toBe(true)
  expect(await check('someone-else')).toBe(false)
  await organizations.removeMember({
    organizationId: 'acme',
    actorAccountId: ownerId,
    accountId: graceId,
    now,
  })
  expect(await check('acme')).toBe(false)
  // #region last-owner
  const leaving = await organizations.leave({ organizationId: 'acme', accountId: ownerId, now })
  // leaving.outcome === 'last-owner': an organization always keeps an owner
  // #endregion last-owner
  expect(leaving.outcome).toBe('last-owner')
  resolver.close()
})

const first = createPostgresClient({ connectionString: process.env.DATABASE_URL ?? '' })
const second = createPostgresClient({ connectionString: process.env.DATABASE_URL ?? '' })
await migrate(first)
afterAll(async () => {
  await first.close()
  await second.close()
})

it('evicts a removed member on another instance through the revocation notices', async () => {
  // #region postgres
  const notices = new PostgresRevocationNotices({ client: second })
  await notices.start()
  const organizations = new PostgresOrganizationStore({ client: first })
  const resolver = membershipResolver({
    memberships: new PostgresOrganizationStore({ client: second }),
    notices,
  })
  // #endregion postgres
  const accounts = new PostgresAccountStore({ client: first })
  const now = new Date()
  const ownerId = randomUUID()
  await accounts.createAccount({ accountId: ownerId, username: `docs-${ownerId}`, passwordHash: HASH, now })
  const organizationId = `docs-${randomUUID()}`
  await organizations.createOrganization({ organizationId, name: 'Docs', ownerAccountId: ownerId, now })
  const request = { principal: { id: ownerId, kind: 'user' as const }, evidence: [] }
  const tenants = async () => AuthorizationSnapshot.from((await resolver(request)) ?? {})
  expect((await tenants()).inTenant(organizationId)).toBe(true)
  await organizations.deleteOrganization({ organizationId, actorAccountId: ownerId, now })
  const started = Date.now()
  while ((await tenants()).inTenant(organizationId)) await new Promise((resolve) => setTimeout(resolve, 2))
  expect(Date.now() - started).toBeLessThan(1_000)
  resolver.close()
  await notices.close()
})
