import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { MemoryAccountStore } from '../accounts/memory-store.js'
import type { SecurityEvent } from '../local-accounts/security-events.js'
import { MemoryOrganizationStore } from '../organizations/memory-store.js'
import type { DnsTxtResolver } from './dns.js'
import { OrganizationJoinRequests } from './join-requests.js'
import { MemoryOrganizationDomainStore } from './memory-store.js'
import { createOrganizationDomains } from './organization-domains.js'
import type { DomainEnrollmentMode } from './port.js'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'

function world(options: { maxPendingPerOrganization?: number } = {}) {
  const store = new MemoryOrganizationStore()
  const accounts = new MemoryAccountStore({ cascade: [store] })
  const txt = new Map<string, string>()
  const resolver: DnsTxtResolver = {
    resolveTxt: async (name) => (txt.has(name) ? [[txt.get(name) as string]] : []),
  }
  const domains = createOrganizationDomains({
    store: new MemoryOrganizationDomainStore(),
    freeMailDomains: new Set(['gmail.com']),
    resolver,
  })
  const events: SecurityEvent[] = []
  const joins = new OrganizationJoinRequests({
    domains,
    store,
    accounts,
    events: (event) => {
      events.push(event)
    },
    ...options,
  })
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
  /** An organization of a fresh owner holding `domain` in `mode`, verified unless told otherwise. */
  const organization = async (domain: string, enrollment: DomainEnrollmentMode, verify = true) => {
    const ownerId = await account()
    const organizationId = `org-${randomUUID()}`
    await store.createOrganization({ organizationId, name: 'Acme', ownerAccountId: ownerId, now: new Date() })
    const claimed = await domains.claim({ organizationId, domain, enrollment, managerAccountId: ownerId })
    if (verify) {
      txt.set(claimed.recordName, claimed.recordValue)
      await domains.verify({ organizationId, id: claimed.claim.id })
    }
    return { organizationId, ownerId, domainId: claimed.claim.id }
  }
  const codeOf = (call: Promise<unknown>) =>
    call.then(
      () => 'resolved',
      (error: { code?: string }) => error.code,
    )
  return { store, accounts, domains, joins, events, account, organization, codeOf }
}

describe('OrganizationJoinRequests', () => {
  it('a verified address at a suggested domain asks; the owner approves into the member role', async () => {
    const w = world()
    const { organizationId, ownerId } = await w.organization('acme.example', 'automatic-suggestion')
    const person = await w.account('pat@acme.example')
    const asked = await w.joins.ask({ organizationId, accountId: person })
    expect(asked).toMatchObject({ organizationId, accountId: person, address: 'pat@acme.example' })
    expect(await w.joins.ask({ organizationId, accountId: person })).toEqual(asked)
    expect((await w.joins.list({ organizationId, actorAccountId: ownerId })).map((r) => r.requestId)).toEqual(
      [asked.requestId],
    )
    expect(await w.joins.mine(person)).toHaveLength(1)
    const membership = await w.joins.approve({
      organizationId,
      requestId: asked.requestId,
      actorAccountId: ownerId,
    })
    expect(membership).toMatchObject({ organizationId, accountId: person, role: 'member' })
    expect(w.events.map((event) => event.type)).toEqual([
      'organization.join_requested',
      'organization.join_approved',
    ])
    expect(w.events[1]).toMatchObject({ accountId: person, actorId: ownerId, organizationId, role: 'member' })
    expect(JSON.stringify(w.events)).not.toContain('pat@acme.example')
  })

  it('refuses as not_found without a verified address at exactly the domain, or in another mode', async () => {
    const w = world()
    const suggested = await w.organization('acme.example', 'automatic-suggestion')
    const invited = await w.organization('beta.example', 'automatic-invitation')
    const manual = await w.organization('gamma.example', 'manual-invitation')
    const pending = await w.organization('delta.example', 'automatic-suggestion', false)
    const unverified = await w.account('sam@acme.example', false)
    const subdomain = await w.account('sam@mail.acme.example')
    const elsewhere = await w.account('sam@other.example')
    const none = await w.account()
    for (const accountId of [unverified, subdomain, elsewhere, none]) {
      expect(await w.codeOf(w.joins.ask({ organizationId: suggested.organizationId, accountId }))).toBe(
        'organizations.not_found',
      )
    }
    const beta = await w.account('b@beta.example')
    const gamma = await w.account('g@gamma.example')
    const delta = await w.account('d@delta.example')
    expect(await w.codeOf(w.joins.ask({ organizationId: invited.organizationId, accountId: beta }))).toBe(
      'organizations.not_found',
    )
    expect(await w.codeOf(w.joins.ask({ organizationId: manual.organizationId, accountId: gamma }))).toBe(
      'organizations.not_found',
    )
    expect(await w.codeOf(w.joins.ask({ organizationId: pending.organizationId, accountId: delta }))).toBe(
      'organizations.not_found',
    )
    // A verified address at acme.example does not open another organization.
    const pat = await w.account('pat@acme.example')
    expect(await w.codeOf(w.joins.ask({ organizationId: invited.organizationId, accountId: pat }))).toBe(
      'organizations.not_found',
    )
    expect(w.events).toHaveLength(0)
  })

  it('refuses members, the limit, plain members deciding and another organization’s request id', async () => {
    const w = world({ maxPendingPerOrganization: 1 })
    const { organizationId, ownerId } = await w.organization('acme.example', 'automatic-suggestion')
    const other = await w.organization('other.example', 'automatic-suggestion')
    expect(await w.codeOf(w.joins.ask({ organizationId, accountId: ownerId }))).toBe(
      'organizations.not_found',
    )
    const first = await w.account('a@acme.example')
    const second = await w.account('b@acme.example')
    const asked = await w.joins.ask({ organizationId, accountId: first })
    expect(await w.codeOf(w.joins.ask({ organizationId, accountId: second }))).toBe(
      'organizations.join_request_limit',
    )
    const outsider = await w.account('o@other.example')
    const foreign = await w.joins.ask({ organizationId: other.organizationId, accountId: outsider })
    expect(
      await w.codeOf(
        w.joins.approve({ organizationId, requestId: foreign.requestId, actorAccountId: ownerId }),
      ),
    ).toBe('organizations.not_found')
    expect(
      await w.codeOf(w.joins.decline({ organizationId, requestId: asked.requestId, actorAccountId: first })),
    ).toBe('organizations.not_found')
    await w.joins.decline({ organizationId, requestId: asked.requestId, actorAccountId: ownerId })
    expect(w.events.at(-1)).toMatchObject({ type: 'organization.join_declined', accountId: first })
    expect(await w.store.membershipsOf(first)).toHaveLength(0)
    expect(
      await w.codeOf(
        w.joins.approve({ organizationId, requestId: asked.requestId, actorAccountId: ownerId }),
      ),
    ).toBe('organizations.not_found')
    await w.joins.ask({ organizationId, accountId: second })
  })

  it('a request stops being possible when the domain leaves suggestion mode', async () => {
    const w = world()
    const { organizationId, domainId } = await w.organization('acme.example', 'automatic-suggestion')
    const person = await w.account('pat@acme.example')
    await w.domains.setEnrollment({ organizationId, id: domainId, enrollment: 'manual-invitation' })
    expect(await w.codeOf(w.joins.ask({ organizationId, accountId: person }))).toBe('organizations.not_found')
  })

  it('rejects malformed ids before reading anything', async () => {
    const w = world()
    expect(await w.codeOf(w.joins.ask({ organizationId: '../x', accountId: 'a' }))).toBe(
      'organizations.invalid_input',
    )
    expect(
      await w.codeOf(w.joins.approve({ organizationId: 'org-1', requestId: 'nope', actorAccountId: 'a' })),
    ).toBe('organizations.invalid_input')
  })
})
