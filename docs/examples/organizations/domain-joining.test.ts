// Joining by verified domain, as docs/organizations.md shows it: an owner claims and verifies a domain in
// automatic-invitation mode, a person verifies an address at it, AutomaticInvitations mails them an
// invitation through the outbox, and only their accepting it makes them a member.
import { randomBytes, randomUUID } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { CodeKeyRing } from '@portcullis/core/codes'
import { type InvitationMessage, MemoryMailOutbox, openOutboxMessage } from '@portcullis/core/mail'
import {
  AutomaticInvitations,
  createOrganizationDomains,
  type DnsTxtResolver,
  MemoryOrganizationDomainStore,
} from '@portcullis/core/organization-domains'
import { MemoryOrganizationStore, OrganizationInvitations } from '@portcullis/core/organizations'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { expect, it } from 'vitest'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('docs-1', randomBytes(32)),
})
const outbox = new MemoryMailOutbox()
const organizations = new MemoryOrganizationStore({ outbox })
const accounts = new MemoryAccountStore({ cascade: [organizations], outbox })
const invitations = new OrganizationInvitations({
  invitations: organizations,
  organizations,
  memberships: organizations,
  keyRing: new CodeKeyRing({ version: 1, secret: randomBytes(32) }),
  protector,
  publicOrigin: 'https://app.example',
})
// Tests only: the TXT records the organization publishes (see docs/organization-domains.md for real DNS).
const published = new Map<string, string>()
const resolver: DnsTxtResolver = {
  resolveTxt: async (name) => (published.has(name) ? [[published.get(name) as string]] : []),
}

it('invites a newly verified address at a verified domain; accepting makes the member', async () => {
  const now = new Date()
  const ownerId = randomUUID()
  const adaId = randomUUID()
  for (const accountId of [ownerId, adaId]) {
    await accounts.createAccount({ accountId, username: accountId, passwordHash: HASH, now })
  }
  await organizations.createOrganization({
    organizationId: 'acme',
    name: 'Acme',
    ownerAccountId: ownerId,
    now,
  })

  // #region wiring
  const domains = createOrganizationDomains({
    store: new MemoryOrganizationDomainStore(), // or PostgresOrganizationDomainStore
    freeMailDomains: new Set(['gmail.com']), // freeMailDomains() of @portcullis/http/organizations
    resolver,
  })
  const automatic = new AutomaticInvitations({
    domains,
    invitations, // the mail goes through its outbox, in the invitation's transaction
    stores: organizations, // memberships and pending invitations
    accounts, // the address must be the account's, verified
  })
  // #endregion wiring

  // #region claim
  const claimed = await domains.claim({
    organizationId: 'acme',
    domain: 'acme.example',
    enrollment: 'automatic-invitation',
    managerAccountId: ownerId, // from the verified principal: invitations go in this manager's name
  })
  published.set(claimed.recordName, claimed.recordValue) // the organization's DNS administrator
  await domains.verify({ organizationId: 'acme', id: claimed.claim.id })
  // #endregion claim

  await accounts.addEmailAddress({ accountId: adaId, address: 'ada@acme.example', now })
  await accounts.verifyEmailAddress({ accountId: adaId, address: 'ada@acme.example', now })
  // #region address-verified
  // After the account service verified the address (its verification flow):
  const results = await automatic.addressVerified({ accountId: adaId, address: 'ada@acme.example' })
  // [{ organizationId: 'acme', domain: 'acme.example', outcome: 'invited' }]: a mail, not a membership
  // #endregion address-verified
  expect(results).toEqual([{ organizationId: 'acme', domain: 'acme.example', outcome: 'invited' }])
  expect(await organizations.membershipsOf(adaId)).toEqual([])
  const [row] = outbox.pending()
  if (row === undefined) throw new Error('no mail')
  const mail = (await openOutboxMessage(protector, row)) as InvitationMessage
  expect(mail.to.address).toBe('ada@acme.example')
  const link = new URL(mail.link)
  const membership = await invitations.accept({
    invitationId: link.searchParams.get('flow') ?? '',
    code: mail.code,
    accountId: adaId,
  })
  expect(membership.role).toBe('member')
})
