// The organizations migration on a database of the version before it that holds accounts with verified
// addresses, sessions and one-time codes: every row of every table is the same afterwards, the three
// new tables are empty, and the existing accounts create organizations, invite, accept and delete.
import { randomUUID } from 'node:crypto'
import { CodeKeyRing, generateFlowId } from '@portcullis/core/codes'
import { digestOpaqueToken, newOpaqueToken } from '@portcullis/core/local-accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  MIGRATIONS,
  migrate,
  PostgresAccountStore,
  type PostgresClient,
  PostgresOrganizationStore,
  PostgresSessionStore,
} from '../src/index.js'
import {
  everyRow,
  insertLiveOldSession,
  migrateThrough,
  migrationDatabase,
} from './support/migration-database.js'

const VERSION = MIGRATIONS.find((migration) => migration.name === 'organizations')?.version ?? -1
const NOW = new Date('2026-11-30T12:00:00.000Z')
const NEW_TABLES = ['portcullis_invitations', 'portcullis_memberships', 'portcullis_organizations']
const client: PostgresClient = await migrationDatabase()

const HASH = (label: string) => `$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$${label.padEnd(43, 'A')}`
let before: Record<string, unknown[]> = {}
let after: Record<string, unknown[]> = {}
const session = newOpaqueToken(32)

describe(`migration ${VERSION} (organizations) on a database at version ${VERSION - 1}`, () => {
  beforeAll(async () => {
    expect(VERSION).toBeGreaterThan(1)
    await migrateThrough(client, VERSION - 1)
    const accounts = new PostgresAccountStore({ client })
    for (const name of ['alice', 'bob']) {
      const created = await accounts.createAccount({
        accountId: name,
        username: name,
        passwordHash: HASH(name),
        now: NOW,
      })
      expect(created.outcome).toBe('created')
      const address = `${name}@mail.example`
      await accounts.addEmailAddress({ accountId: name, address, now: NOW })
      await accounts.verifyEmailAddress({ accountId: name, address, now: NOW })
    }
    await insertLiveOldSession(client, { token: session, accountId: 'alice', now: NOW })
    before = await everyRow(client)
    const later = MIGRATIONS.filter((migration) => migration.version >= VERSION).map(({ version }) => version)
    expect(await migrate(client)).toEqual({ applied: later, current: later.at(-1) })
    after = await everyRow(client)
  })

  it('keeps every row of every table; the new tables are empty', () => {
    expect(before.portcullis_accounts).toHaveLength(2)
    expect(before.portcullis_email_addresses).toHaveLength(2)
    expect(before.portcullis_sessions).toHaveLength(1)
    for (const name of NEW_TABLES) {
      expect(before[name]).toBeUndefined()
      expect(after[name]).toEqual([])
    }
    const kept = Object.fromEntries(Object.entries(after).filter(([name]) => name in before))
    expect(kept).toEqual(before)
  })

  it('the existing accounts found an organization, invite by verified address, and keep their owner', async () => {
    const organizations = new PostgresOrganizationStore({ client })
    const accounts = new PostgresAccountStore({ client })
    const organizationId = `acme-${randomUUID()}`
    const created = await organizations.createOrganization({
      organizationId,
      name: 'Acme',
      ownerAccountId: 'alice',
      now: NOW,
    })
    expect(created.outcome).toBe('created')
    const ring = new CodeKeyRing({ version: 1, secret: new Uint8Array(32).fill(7) })
    const invitationId = generateFlowId()
    const { digest, keyVersion } = ring.issueDigest({
      id: invitationId,
      purpose: 'invitation',
      code: 'CODE23456789',
    })
    const invitation = {
      invitationId,
      organizationId,
      address: 'bob@mail.example',
      role: 'member',
      inviterAccountId: 'alice',
      digest,
      keyVersion,
      createdAt: NOW,
      expiresAt: new Date(NOW.getTime() + 86_400_000),
    }
    expect((await organizations.issueInvitation({ invitation, now: NOW })).outcome).toBe('issued')
    const candidates = ring.candidates({ id: invitationId, purpose: 'invitation', code: 'CODE23456789' })
    const accepted = await organizations.acceptInvitation({
      invitationId,
      candidates,
      accountId: 'bob',
      now: NOW,
    })
    expect(accepted.outcome).toBe('accepted')
    expect(await accounts.deleteAccount({ accountId: 'alice', now: NOW })).toEqual({
      outcome: 'last-owner',
      organizationIds: [organizationId],
    })
    expect(await accounts.deleteAccount({ accountId: 'bob', now: NOW })).toEqual({ outcome: 'deleted' })
    expect(await organizations.membershipsOf('bob')).toEqual([])
    const stored = await new PostgresSessionStore({ client }).get(digestOpaqueToken(session), new Date())
    expect(stored?.accountId).toBe('alice')
  })
})
