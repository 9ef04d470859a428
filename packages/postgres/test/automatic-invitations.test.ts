// The automatic-invitation enrollment mode over the Postgres stores: a verified domain claimed by its
// owner in that mode, a person verifying an address at it, the invitation issued in the owner's name with
// its mail in the outbox table (same transaction), no membership until the person accepts, and nothing
// more for a replay, an unverified address or a subdomain.
import { randomBytes, randomUUID } from 'node:crypto'
import { CodeKeyRing } from '@portcullis/core/codes'
import { type InvitationMessage, openOutboxMessage } from '@portcullis/core/mail'
import {
  AutomaticInvitations,
  createOrganizationDomains,
  type DnsTxtResolver,
} from '@portcullis/core/organization-domains'
import { OrganizationInvitations } from '@portcullis/core/organizations'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { afterAll, describe, expect, it } from 'vitest'
import {
  PostgresAccountStore,
  PostgresMailOutbox,
  PostgresOrganizationDomainStore,
  PostgresOrganizationStore,
} from '../src/index.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())

const HASH = (label: string) => `$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$${label.padEnd(43, 'A')}`
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
})
const store = new PostgresOrganizationStore({ client: db.client })
const accounts = new PostgresAccountStore({ client: db.client })
const outbox = new PostgresMailOutbox({ client: db.client })
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
  store: new PostgresOrganizationDomainStore({ client: db.client }),
  freeMailDomains: new Set(['gmail.com']),
  resolver,
})
const automatic = new AutomaticInvitations({ domains, invitations, stores: store, accounts })

async function account(address?: string, verified = true): Promise<string> {
  const accountId = randomUUID()
  const now = new Date()
  const created = await accounts.createAccount({
    accountId,
    username: `u-${accountId}`,
    passwordHash: HASH(accountId.slice(0, 8)),
    now,
  })
  expect(created.outcome).toBe('created')
  if (address !== undefined) {
    await accounts.addEmailAddress({ accountId, address, now })
    if (verified) await accounts.verifyEmailAddress({ accountId, address, now })
  }
  return accountId
}

async function invitationMails(): Promise<InvitationMessage[]> {
  const rows = await outbox.claim({ now: new Date(Date.now() + 1000), limit: 50, leaseSeconds: 1 })
  const opened = await Promise.all(rows.map((row) => openOutboxMessage(protector, row)))
  return opened.filter((message): message is InvitationMessage => message.kind === 'invitation')
}

describe('AutomaticInvitations over Postgres', () => {
  it("invites a newly verified address at the organization's verified domain; only accepting makes a member", async () => {
    const owner = await account()
    await store.createOrganization({
      organizationId: 'acme',
      name: 'Acme',
      ownerAccountId: owner,
      now: new Date(),
    })
    const claimed = await domains.claim({
      organizationId: 'acme',
      domain: 'acme.example',
      enrollment: 'automatic-invitation',
      managerAccountId: owner,
    })
    expect(claimed.claim.enrolledBy).toBe(owner)
    txt.set(claimed.recordName, claimed.recordValue)
    await domains.verify({ organizationId: 'acme', id: claimed.claim.id })

    const ada = await account('ada@acme.example')
    const results = await automatic.addressVerified({ accountId: ada, address: 'ada@acme.example' })
    expect(results).toEqual([{ organizationId: 'acme', domain: 'acme.example', outcome: 'invited' }])
    expect(await store.membershipsOf(ada)).toEqual([])
    const replay = await automatic.addressVerified({ accountId: ada, address: 'ada@acme.example' })
    expect(replay.map((result) => result.outcome)).toEqual(['pending'])
    const unverified = await account('bob@acme.example', false)
    expect(await automatic.addressVerified({ accountId: unverified, address: 'bob@acme.example' })).toEqual(
      [],
    )
    const subdomain = await account('dan@mail.acme.example')
    expect(
      await automatic.addressVerified({ accountId: subdomain, address: 'dan@mail.acme.example' }),
    ).toEqual([])

    const mails = await invitationMails()
    expect(mails.map((mail) => mail.to.address)).toEqual(['ada@acme.example'])
    const link = new URL(mails[0]?.link ?? '')
    const membership = await invitations.accept({
      invitationId: link.searchParams.get('flow') ?? '',
      code: mails[0]?.code ?? '',
      accountId: ada,
    })
    expect(membership).toMatchObject({ organizationId: 'acme', role: 'member' })
    const member = await automatic.addressVerified({ accountId: ada, address: 'ada@acme.example' })
    expect(member.map((result) => result.outcome)).toEqual(['already-member'])
  })
})
