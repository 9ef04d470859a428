// The join-request migration on a database of the version before it, holding accounts with verified
// addresses, organizations, memberships, an invitation and a verified domain: every row of every table
// is the same afterwards, the new table is empty, and a request made then approved writes the
// membership, while a pending one goes with its account.
import { beforeAll, describe, expect, it } from 'vitest'
import {
  MIGRATIONS,
  migrate,
  PostgresAccountStore,
  type PostgresClient,
  PostgresOrganizationDomainStore,
  PostgresOrganizationStore,
} from '../src/index.js'
import { everyRow, migrateThrough, migrationDatabase } from './support/migration-database.js'

const VERSION = MIGRATIONS.find((migration) => migration.name === 'join-requests')?.version ?? -1
const NOW = new Date('2026-12-02T12:00:00.000Z')
const client: PostgresClient = await migrationDatabase()

const HASH = (label: string) => `$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$${label.padEnd(43, 'A')}`
let before: Record<string, unknown[]> = {}
let after: Record<string, unknown[]> = {}
let applied: readonly number[] = []

describe(`migration ${VERSION} (join requests) on a database at version ${VERSION - 1}`, () => {
  beforeAll(async () => {
    expect(VERSION).toBeGreaterThan(0)
    await migrateThrough(client, VERSION - 1)
    const accounts = new PostgresAccountStore({ client })
    for (const name of ['alice', 'bob', 'carol']) {
      const created = await accounts.createAccount({
        accountId: name,
        username: `${name}-user`,
        passwordHash: HASH(name),
        now: NOW,
      })
      expect(created.outcome).toBe('created')
      const address = `${name}@acme.example`
      expect((await accounts.addEmailAddress({ accountId: name, address, now: NOW })).outcome).toBe('added')
      expect((await accounts.verifyEmailAddress({ accountId: name, address, now: NOW })).outcome).toBe(
        'verified',
      )
    }
    const organizations = new PostgresOrganizationStore({ client })
    const created = await organizations.createOrganization({
      organizationId: 'acme',
      name: 'Acme',
      ownerAccountId: 'alice',
      now: NOW,
    })
    expect(created.outcome).toBe('created')
    const domains = new PostgresOrganizationDomainStore({ client })
    const claim = {
      id: 'C'.repeat(22),
      organizationId: 'acme',
      domain: 'acme.example',
      token: 'T'.repeat(43),
      enrollment: 'automatic-suggestion' as const,
      createdAt: NOW,
      verifiedAt: null,
    }
    expect((await domains.claim({ claim, maxPerOrganization: 5 })).outcome).toBe('claimed')
    expect(
      (await domains.markVerified({ organizationId: 'acme', id: claim.id, token: claim.token, now: NOW }))
        .outcome,
    ).toBe('verified')
    before = await everyRow(client)
    const report = await migrate(client)
    applied = report.applied
    after = await everyRow(client)
  })

  it(`applies version ${VERSION} (and any later) and keeps every row of every table`, () => {
    expect(applied[0]).toBe(VERSION)
    expect(before.portcullis_organizations).toHaveLength(1)
    expect(before.portcullis_memberships).toHaveLength(1)
    expect(before.portcullis_organization_domains).toHaveLength(1)
    expect(after.portcullis_join_requests).toEqual([])
    const existing = Object.fromEntries(Object.keys(before).map((name) => [name, after[name]]))
    expect(existing).toEqual(before)
  })

  it('an existing account asks and is approved; a pending request goes with its account', async () => {
    const store = new PostgresOrganizationStore({ client })
    const ask = (accountId: string, requestId: string) =>
      store.requestToJoin({
        joinRequest: {
          requestId,
          organizationId: 'acme',
          accountId,
          address: `${accountId}@acme.example`,
          createdAt: NOW,
        },
        maxPendingPerOrganization: 10,
      })
    expect((await ask('bob', 'B'.repeat(22))).outcome).toBe('requested')
    expect((await ask('carol', 'K'.repeat(22))).outcome).toBe('requested')
    const approved = await store.decideJoinRequest({
      organizationId: 'acme',
      requestId: 'B'.repeat(22),
      actorAccountId: 'alice',
      decision: 'approve',
      now: NOW,
    })
    expect(approved.outcome).toBe('approved')
    expect((await store.membershipsOf('bob')).map((m) => [m.organizationId, m.role])).toEqual([
      ['acme', 'member'],
    ])
    const accounts = new PostgresAccountStore({ client })
    expect((await accounts.deleteAccount({ accountId: 'carol', now: NOW })).outcome).toBe('deleted')
    const listed = await store.listJoinRequests({ organizationId: 'acme', actorAccountId: 'alice' })
    expect(listed).toEqual({ outcome: 'listed', joinRequests: [] })
  })
})
