// Migration 12 (email addresses) on a database of the version before it (11) that holds accounts,
// passwords, provider identities and sessions: every row of every table is the same afterwards, the
// identity links gain only the two informational columns (null), and the accounts work as before and
// can take addresses.
import { digestOpaqueToken, newOpaqueToken } from '@portcullis/core/local-accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  MIGRATIONS,
  migrate,
  PostgresAccountStore,
  type PostgresClient,
  PostgresSessionStore,
} from '../src/index.js'
import { realProtector } from './support/database.js'
import {
  everyRow,
  insertLiveOldSession,
  migrateThrough,
  migrationDatabase,
} from './support/migration-database.js'

const VERSION = MIGRATIONS.find((migration) => migration.name === 'email-addresses')?.version ?? -1
const NOW = new Date('2026-11-30T12:00:00.000Z')
const client: PostgresClient = await migrationDatabase()

const HASH = (label: string) => `$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$${label.padEnd(43, 'A')}`
let before: Record<string, unknown[]> = {}
let after: Record<string, unknown[]> = {}
const session = newOpaqueToken(32)

describe(`migration ${VERSION} (email addresses) on a database at version ${VERSION - 1}`, () => {
  beforeAll(async () => {
    expect(VERSION).toBeGreaterThan(1)
    await migrateThrough(client, VERSION - 1)
    const accounts = new PostgresAccountStore({ client })
    for (const name of ['alice', 'bob', 'carol']) {
      const created = await accounts.createAccount({
        accountId: name,
        username: `${name}@users.example`,
        passwordHash: HASH(name),
        now: NOW,
      })
      expect(created.outcome).toBe('created')
    }
    await accounts.setPassword({ accountId: 'bob', passwordHash: HASH('bob2'), now: NOW, bumpEpoch: true })
    // A provider identity as version 11 stored it (its table has no email columns yet).
    await client.pool.query(
      `insert into portcullis_oauth_links (provider_account_id, account_id, provider, issuer, subject,
         grant_scopes, grant_expires_at, linked_at, updated_at)
       values ('pa-carol', 'carol', 'google', 'https://accounts.google.example', 'g-carol', '{openid,email}',
         null, $1, $1)`,
      [NOW],
    )
    await insertLiveOldSession(client, { token: session, accountId: 'alice', now: NOW })
    before = await everyRow(client)
    const later = MIGRATIONS.filter((migration) => migration.version >= VERSION).map(({ version }) => version)
    expect(await migrate(client)).toEqual({ applied: later, current: later.at(-1) })
    after = await everyRow(client)
  })

  it('keeps every row of every table, the identity links gaining only null email columns', () => {
    expect(before.portcullis_accounts).toHaveLength(3)
    expect(before.portcullis_passwords).toHaveLength(3)
    expect(before.portcullis_sessions).toHaveLength(1)
    const links = (after.portcullis_oauth_links ?? []) as Record<string, unknown>[]
    expect(links).toHaveLength(1)
    // everyRow leaves null columns out: the new email columns are null on every link.
    for (const link of links) expect([link.email ?? null, link.email_verified ?? null]).toEqual([null, null])
    const withoutNew = {
      ...after,
      portcullis_oauth_links: links.map(({ email: _email, email_verified: _verified, ...rest }) => rest),
    }
    delete (withoutNew as Record<string, unknown>).portcullis_email_addresses
    // Tables of later migrations (applied by the same call) are new too.
    for (const name of Object.keys(withoutNew))
      if (!(name in before)) delete (withoutNew as Record<string, unknown>)[name]
    expect(withoutNew).toEqual(before)
    expect(after.portcullis_email_addresses).toEqual([])
  })

  it('the accounts sign in as before and can take a verified address', async () => {
    const accounts = new PostgresAccountStore({ client })
    const bob = await accounts.findPassword({ username: 'bob@users.example' })
    expect(bob).toMatchObject({ accountId: 'bob', passwordHash: HASH('bob2'), securityEpoch: 2 })
    const stored = await new PostgresSessionStore({ client }).get(digestOpaqueToken(session), new Date())
    expect(stored?.accountId).toBe('alice')
    const address = 'Alice@mail.example'
    expect((await accounts.addEmailAddress({ accountId: 'alice', address, now: NOW })).outcome).toBe('added')
    expect((await accounts.verifyEmailAddress({ accountId: 'alice', address, now: NOW })).outcome).toBe(
      'verified',
    )
    expect((await accounts.findPassword({ verifiedEmail: address }))?.accountId).toBe('alice')
  })

  it('the identity signs in to its account and now records the provider email, linking nothing by it', async () => {
    const accounts = new PostgresAccountStore({ client })
    const google = accounts.oauth({
      provider: 'google',
      clientId: 'google-client',
      protector: realProtector(),
    })
    const login = await google.login({
      identity: {
        provider: 'google',
        issuer: 'https://accounts.google.example',
        subject: 'g-carol',
        email: 'Alice@mail.example',
        emailVerified: true,
      },
      grant: { scopes: ['openid', 'email'] },
      provisionUnknown: false,
      now: NOW,
    })
    expect(login).toMatchObject({ provisioned: false })
    expect(login.link).toMatchObject({
      accountId: 'carol',
      email: 'Alice@mail.example',
      emailVerified: true,
    })
    expect((await accounts.findAccountByVerifiedEmail('Alice@mail.example'))?.accountId).toBe('alice')
  })
})
