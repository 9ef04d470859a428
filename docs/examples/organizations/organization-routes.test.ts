// The organization routes, as docs/organizations.md shows them: createOrganizationRoutes on an Express
// server on loopback over Postgres stores (a disposable database), the invitation mail drained from the
// outbox over SMTP to a real server in this process, and its holder, signed in with the address verified,
// accepting with the link of the mail; a store outage is 503.
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { CodeKeyRing } from '@portcullis/core/codes'
import { LocalAccounts, MemoryRateLimitStore, PASSWORD_ACCEPTED } from '@portcullis/core/local-accounts'
import { MailOutboxDrain } from '@portcullis/core/mail'
import { OrganizationInvitations } from '@portcullis/core/organizations'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { createOrganizationRoutes, createSecurity, localAccountRoutes } from '@portcullis/express'
import {
  createPostgresClient,
  PostgresAccountStore,
  PostgresMailOutbox,
  PostgresOrganizationStore,
  PostgresSessionStore,
} from '@portcullis/postgres'
import express from 'express'
import { afterAll, expect, it } from 'vitest'
import { plainHasher } from '../../test/support/example-hasher.js'
import { startExampleSmtp } from '../../test/support/example-mail.js'
import { exampleDatabase } from '../../test/support/example-postgres.js'
import { signInOverHttp } from '../../test/support/example-sign-in.js'

const client = await exampleDatabase()
const { mailer, delivered } = await startExampleSmtp('team@example.com')

// Tests only: a hasher without cost (an application uses @portcullis/argon2).
const hasher = plainHasher
const ORIGIN = 'http://127.0.0.1'
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('docs-1', randomBytes(32)),
})
const organizations = new PostgresOrganizationStore({ client })
const accounts = new PostgresAccountStore({ client })
const local = new LocalAccounts({
  profile: 'session',
  accounts,
  sessions: new PostgresSessionStore({ client }),
  rateLimits: new MemoryRateLimitStore(),
  hasher,
  passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
  publicOrigin: ORIGIN,
  registration: 'open',
})
const drain = new MailOutboxDrain({ store: new PostgresMailOutbox({ client }), mailer, protector })

// #region routes
const invitations = new OrganizationInvitations({
  invitations: organizations, // one MemoryOrganizationStore or PostgresOrganizationStore is all three
  organizations,
  memberships: organizations,
  keyRing: new CodeKeyRing({ version: 1, secret: randomBytes(32) }),
  protector, // seals the mail into the outbox
  publicOrigin: ORIGIN, // the mail's link: /organizations/invitations/accept?flow=...#code=...
})
const security = createSecurity({ mechanisms: local.mechanisms })
const app = express()
app.use(security.middleware)
app.use(localAccountRoutes({ local, security })) // sign-in, and the CSRF check of every session POST
app.use(createOrganizationRoutes({ organizations, invitations, local, security }))
// Fastify: createOrganizationRoutes(fastify, { ... }); Hono: createOrganizationRoutes(app, security, { ... });
// the fetch form: createFetchSecurity({ organizations: { ... }, ... }).
// #endregion routes

const server = app.listen(0, '127.0.0.1')
await new Promise<void>((resolve) => server.once('listening', () => resolve()))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const signIn = (username: string) => signInOverHttp(base, local, username)

/** What the application's drain does after the commit: the invitation mail, sent over SMTP and received. */
async function deliveredInvitationLink(): Promise<URL> {
  const text = (await delivered(drain))[0]?.text ?? ''
  const link = /https?:\/\/\S+\/organizations\/invitations\/accept\?flow=\S+#code=[A-Z0-9]+/.exec(text)
  if (link === null) throw new Error('no invitation link in the mail')
  return new URL(link[0])
}

it('an owner invites an address; its verified holder accepts with the link of the mail', async () => {
  const ada = await signIn('ada')
  const bob = await signIn('bob')
  const now = new Date()
  await accounts.addEmailAddress({ accountId: bob.accountId, address: 'bob@example.com', now })
  await accounts.verifyEmailAddress({ accountId: bob.accountId, address: 'bob@example.com', now })

  // #region invite
  // The owner creates the organization (the caller is its first owner) and invites an address.
  await ada.post('/auth/organizations', { organizationId: 'acme', name: 'Acme' }) // 201
  const invited = await ada.post('/auth/organizations/acme/invitations', {
    address: 'bob@example.com',
    role: 'member', // at or below the inviter's own role, else 403 organizations.rank_exceeded
  })
  // 201 { invitationId, address, role, expiresAt, ... }: no code; the code is only in the mail
  // #endregion invite
  expect(invited.status).toBe(201)
  const link = await deliveredInvitationLink()
  const code = new URLSearchParams(link.hash.slice(1)).get('code') ?? ''
  expect(code).toMatch(/^[A-Z0-9]{12}$/)
  expect(await invited.text()).not.toContain(code)

  // #region accept
  // link: the URL of the mail, `${ORIGIN}/organizations/invitations/accept?flow=...#code=...`.
  // The accept page reads `flow` from the link's query and `code` from its fragment, then POSTs them
  // with the session of the invited, verified address (a GET never consumes an invitation).
  const accepted = await bob.post('/auth/organizations/invitations/accept', {
    invitationId: link.searchParams.get('flow'),
    code: new URLSearchParams(link.hash.slice(1)).get('code'),
  })
  // 200 { organizationId: 'acme', accountId: <bob>, role: 'member', joinedAt }
  // Again: 404 organizations.not_found (spent); another account: 403 organizations.address_mismatch
  // #endregion accept
  expect(accepted.status).toBe(200)
  expect(await accepted.json()).toMatchObject({ organizationId: 'acme', role: 'member' })

  // #region members
  const page = await ada.get('/auth/organizations/acme/members?limit=100')
  // 200 { members: [{ accountId, role, joinedAt, ... }], next: null }: `after=<next>` for the next page
  const removed = await ada.post(
    `/auth/organizations/acme/members/${encodeURIComponent(bob.accountId)}/remove`,
  )
  // 204; the owner removing or demoting themselves as the last owner: 409 organizations.last_owner
  // #endregion members
  const { members } = (await page.json()) as { members: { accountId: string }[] }
  expect(members.map((member) => member.accountId).sort()).toEqual([ada.accountId, bob.accountId].sort())
  expect(removed.status).toBe(204)
  const gone = await bob.get('/auth/organizations/acme')
  expect(gone.status).toBe(404)
  expect(((await gone.json()) as { code: string }).code).toBe('organizations.not_found')
})

it('a store outage is 503 with Retry-After, never a 500', async () => {
  const down = createPostgresClient({
    connectionString: 'postgres://app:s3cret@127.0.0.1:1/x',
    maxConnections: 1,
  })
  const second = createSecurity({ mechanisms: local.mechanisms }) // another instance
  const outage = express()
  outage.use(second.middleware)
  outage.use(
    createOrganizationRoutes({
      organizations: new PostgresOrganizationStore({ client: down }),
      invitations,
      local,
      security: second,
    }),
  )
  const listening = outage.listen(0, '127.0.0.1')
  await new Promise<void>((resolve) => listening.once('listening', () => resolve()))
  try {
    const ada = await signIn('ada-outage')
    const answer = await fetch(
      `http://127.0.0.1:${(listening.address() as AddressInfo).port}/auth/organizations`,
      {
        headers: { cookie: ada.cookie },
      },
    )
    expect(answer.status).toBe(503)
    expect(answer.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(((await answer.json()) as { code: string }).code).toBe('postgres.unavailable')
  } finally {
    await new Promise<void>((resolve) => listening.close(() => resolve()))
    await down.close()
  }
})
