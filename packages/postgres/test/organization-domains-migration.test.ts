// The organization-domain migration on a database of the version before it, holding accounts, an
// organization and its memberships: every row of every table is the same afterwards, the new table is
// empty, and the organization can claim and verify a domain that goes with it when it is deleted.
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

const VERSION = MIGRATIONS.find((migration) => migration.name === 'organization-domains')?.version ?? -1
const NOW = new Date('2026-12-02T12:00:00.000Z')
const client: PostgresClient = await migrationDatabase()

const HASH = (label: string) => `$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$${label.padEnd(43, 'A')}`
let before: Record<string, unknown[]> = {}
let after: Record<string, unknown[]> = {}
let applied: readonly number[] = []

describe(`migration ${VERSION} (organization domains) on a database at version ${VERSION - 1}`, () => {
  beforeAll(async () => {
    expect(VERSION).toBeGreaterThan(0)
    await migrateThrough(client, VERSION - 1)
    const accounts = new PostgresAccountStore({ client })
    for (const name of ['alice', 'bob']) {
      const created = await accounts.createAccount({
        accountId: name,
        username: `${name}@users.example`,
        passwordHash: HASH(name),
        now: NOW,
      })
      expect(created.outcome).toBe('created')
    }
    const organizations = new PostgresOrganizationStore({ client })
    for (const [organizationId, owner] of [
      ['acme', 'alice'],
      ['globex', 'bob'],
    ] as const) {
      const created = await organizations.createOrganization({
        organizationId,
        name: organizationId,
        ownerAccountId: owner,
        now: NOW,
      })
      expect(created.outcome).toBe('created')
    }
    before = await everyRow(client)
    const report = await migrate(client)
    applied = report.applied
    after = await everyRow(client)
  })

  it(`applies version ${VERSION} (and any later) and keeps every row of every table`, () => {
    expect(applied[0]).toBe(VERSION)
    expect(before.portcullis_organizations).toHaveLength(2)
    expect(before.portcullis_memberships).toHaveLength(2)
    expect(after.portcullis_organization_domains).toEqual([])
    const existing = Object.fromEntries(Object.keys(before).map((name) => [name, after[name]]))
    expect(existing).toEqual(before)
  })

  it('the organizations claim and verify domains, which go with them when they are deleted', async () => {
    const store = new PostgresOrganizationDomainStore({ client })
    const claim = {
      id: 'C'.repeat(22),
      organizationId: 'globex',
      domain: 'globex.example',
      token: 'T'.repeat(43),
      enrollment: 'automatic-invitation' as const,
      createdAt: NOW,
      verifiedAt: null,
    }
    expect((await store.claim({ claim, maxPerOrganization: 5 })).outcome).toBe('claimed')
    const marked = await store.markVerified({
      organizationId: 'globex',
      id: claim.id,
      token: claim.token,
      now: NOW,
    })
    expect(marked.outcome).toBe('verified')
    const organizations = new PostgresOrganizationStore({ client })
    const deleted = await organizations.deleteOrganization({
      organizationId: 'globex',
      actorAccountId: 'bob',
      now: NOW,
    })
    expect(deleted.outcome).toBe('deleted')
    expect(await store.list({ verifiedDomains: ['globex.example'] })).toEqual([])
    const taken = await store.claim({
      claim: { ...claim, id: 'D'.repeat(22), organizationId: 'acme' },
      maxPerOrganization: 5,
    })
    expect(taken.outcome).toBe('claimed')
  })
})
