import { randomBytes, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { MemoryAccountStore } from '../accounts/memory-store.js'
import { CodeKeyRing } from '../codes/code-keys.js'
import { MemoryMailOutbox } from '../mail/memory-outbox.js'
import type { InvitationMessage } from '../mail/messages.js'
import { openOutboxMessage } from '../mail/outbox-seal.js'
import { OrganizationInvitations } from '../organizations/invitations.js'
import { MemoryOrganizationStore } from '../organizations/memory-store.js'
import { AESGCMOAuthTransactionProtector } from '../protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../protection/key.js'
import { AutomaticInvitations } from './automatic-invitations.js'
import type { DnsTxtResolver } from './dns.js'
import { MemoryOrganizationDomainStore } from './memory-store.js'
import { createOrganizationDomains } from './organization-domains.js'
import type { DomainEnrollmentMode } from './port.js'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'

async function world() {
  const outbox = new MemoryMailOutbox()
  const store = new MemoryOrganizationStore({ outbox })
  const accounts = new MemoryAccountStore({ cascade: [store] })
  const protector = new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
  })
  const invitations = new OrganizationInvitations({
    invitations: store,
    organizations: store,
    memberships: store,
    keyRing: new CodeKeyRing({ version: 1, secret: randomBytes(32) }),
    protector,
    publicOrigin: 'https://app.example',
  })
  const txt = new Map<string, string>()
  const resolver: DnsTxtResolver = {
    resolveTxt: async (name) => (txt.has(name) ? [[txt.get(name) as string]] : []),
  }
  const domains = createOrganizationDomains({
    store: new MemoryOrganizationDomainStore(),
    freeMailDomains: new Set(['gmail.com']),
    resolver,
  })
  const automatic = new AutomaticInvitations({ domains, invitations, stores: store, accounts })
  const account = async (address?: string, verified = true) => {
    const accountId = randomUUID()
    const now = new Date()
    await accounts.createAccount({ accountId, username: `u-${accountId}`, passwordHash: HASH, now })
    if (address !== undefined) {
      await accounts.addEmailAddress({ accountId, address, now })
      if (verified) await accounts.verifyEmailAddress({ accountId, address, now })
    }
    return accountId
  }
  /** An organization of `owner` holding `domain` verified in `mode` (chosen by `manager`, if any). */
  const organization = async (
    organizationId: string,
    owner: string,
    domain: string,
    enrollment: DomainEnrollmentMode,
    manager: string | null = owner,
  ) => {
    await store.createOrganization({
      organizationId,
      name: organizationId,
      ownerAccountId: owner,
      now: new Date(),
    })
    const claimed = await domains.claim({
      organizationId,
      domain,
      enrollment,
      ...(manager === null ? {} : { managerAccountId: manager }),
    })
    txt.set(claimed.recordName, claimed.recordValue)
    await domains.verify({ organizationId, id: claimed.claim.id })
    return claimed.claim.id
  }
  const mails = async (): Promise<InvitationMessage[]> => {
    const opened = await Promise.all(outbox.pending().map((row) => openOutboxMessage(protector, row)))
    return opened.filter((message): message is InvitationMessage => message.kind === 'invitation')
  }
  return { store, accounts, invitations, domains, automatic, account, organization, mails }
}

describe('AutomaticInvitations', () => {
  it('invites a newly verified address at a verified domain in the name of the manager, and never makes a member by itself', async () => {
    const w = await world()
    const owner = await w.account()
    await w.organization('acme', owner, 'acme.example', 'automatic-invitation')
    const ada = await w.account('ada@acme.example')
    const results = await w.automatic.addressVerified({ accountId: ada, address: 'ada@acme.example' })
    expect(results).toEqual([{ organizationId: 'acme', domain: 'acme.example', outcome: 'invited' }])
    expect(await w.store.membershipsOf(ada)).toEqual([])
    const [mail] = await w.mails()
    expect(mail?.to.address).toBe('ada@acme.example')
    // A second call (a replayed hook) sends nothing new while the invitation waits.
    const again = await w.automatic.addressVerified({ accountId: ada, address: 'ada@acme.example' })
    expect(again.map((result) => result.outcome)).toEqual(['pending'])
    expect(await w.mails()).toHaveLength(1)
    // The person accepts like any invitation, with the address verified: only then a member.
    const link = new URL(mail?.link ?? '')
    const membership = await w.invitations.accept({
      invitationId: link.searchParams.get('flow') ?? '',
      code: mail?.code ?? '',
      accountId: ada,
    })
    expect(membership).toMatchObject({ organizationId: 'acme', role: 'member' })
    const member = await w.automatic.addressVerified({ accountId: ada, address: 'ada@acme.example' })
    expect(member.map((result) => result.outcome)).toEqual(['already-member'])
  })

  it('sends nothing for an unverified or foreign address, another domain, a subdomain or another mode', async () => {
    const w = await world()
    const owner = await w.account()
    await w.organization('acme', owner, 'acme.example', 'automatic-invitation')
    await w.organization('globex', owner, 'globex.example', 'automatic-suggestion')
    await w.organization('initech', owner, 'initech.example', 'manual-invitation')
    const unverified = await w.account('bob@acme.example', false)
    expect(await w.automatic.addressVerified({ accountId: unverified, address: 'bob@acme.example' })).toEqual(
      [],
    )
    // An address another account holds verified proves nothing for this one.
    await w.account('carol@acme.example')
    const stranger = await w.account()
    expect(await w.automatic.addressVerified({ accountId: stranger, address: 'carol@acme.example' })).toEqual(
      [],
    )
    for (const address of ['dan@mail.acme.example', 'erin@globex.example', 'frank@initech.example']) {
      const holder = await w.account(address)
      expect(await w.automatic.addressVerified({ accountId: holder, address })).toEqual([])
    }
    expect(await w.mails()).toEqual([])
  })

  it('sends nothing when the claim names no manager, or the manager may no longer invite', async () => {
    const w = await world()
    const owner = await w.account()
    await w.organization('acme', owner, 'acme.example', 'automatic-invitation', null)
    const ada = await w.account('ada@acme.example')
    expect(await w.automatic.addressVerified({ accountId: ada, address: 'ada@acme.example' })).toEqual([
      { organizationId: 'acme', domain: 'acme.example', outcome: 'no-inviter' },
    ])
    // A manager who is no member of the organization (the id names someone else): refused by the store.
    const outsider = await w.account()
    const other = await w.account()
    await w.organization('globex', other, 'globex.example', 'automatic-invitation', outsider)
    const bea = await w.account('bea@globex.example')
    const refused = await w.automatic.addressVerified({ accountId: bea, address: 'bea@globex.example' })
    expect(refused.map((result) => result.outcome)).toEqual(['no-inviter'])
    expect(await w.mails()).toEqual([])
  })
})
