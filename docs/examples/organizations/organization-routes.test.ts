// The organization routes, as docs/organizations.md shows them: createOrganizationRoutes on an Express
// server on loopback over memory stores, and an owner inviting an address over HTTP that its holder,
// signed in with it verified, accepts with the code of the mail.
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { CodeKeyRing } from '@portcullis/core/codes'
import {
  LocalAccounts,
  MemoryRateLimitStore,
  MemorySessionStore,
  PASSWORD_ACCEPTED,
  type PasswordHasher,
} from '@portcullis/core/local-accounts'
import { type InvitationMessage, MemoryMailOutbox, openOutboxMessage } from '@portcullis/core/mail'
import { MemoryOrganizationStore, OrganizationInvitations } from '@portcullis/core/organizations'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { createOrganizationRoutes, createSecurity, localAccountRoutes } from '@portcullis/express'
import express from 'express'
import { afterAll, expect, it } from 'vitest'

// Tests only: a hasher without cost (an application uses @portcullis/argon2).
const hasher: PasswordHasher = {
  hash: async (password) => `$plain$${password}`,
  verify: async (encoded, password) => encoded === `$plain$${password}`,
  needsRehash: () => false,
}
const ORIGIN = 'http://127.0.0.1'
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('docs-1', randomBytes(32)),
})
const outbox = new MemoryMailOutbox()
const organizations = new MemoryOrganizationStore({ outbox })
const sessions = new MemorySessionStore()
const accounts = new MemoryAccountStore({ cascade: [sessions, organizations], outbox })
const local = new LocalAccounts({
  profile: 'session',
  accounts,
  sessions,
  rateLimits: new MemoryRateLimitStore(),
  hasher,
  passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
  publicOrigin: ORIGIN,
  registration: 'open',
})

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

/** Registers and signs in over HTTP: a same-origin `fetch` with the session cookie. */
async function signIn(username: string) {
  const { accountId } = await local.register({ username, password: 'correct horse battery' })
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: ORIGIN, 'sec-fetch-site': 'same-origin' },
    body: JSON.stringify({ username, password: 'correct horse battery' }),
  })
  const headers = {
    cookie: (login.headers.get('set-cookie') ?? '').split(';')[0] as string,
    origin: ORIGIN,
    'sec-fetch-site': 'same-origin',
    'content-type': 'application/json',
  }
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  return {
    accountId,
    get: (path: string) => call('GET', path),
    post: (path: string, body?: unknown) => call('POST', path, body),
  }
}

/** What the mail relay does: the newest invitation mail, opened. */
async function newestInvitationMail(): Promise<InvitationMessage> {
  const row = outbox.pending().at(-1)
  if (row === undefined) throw new Error('no mail')
  return (await openOutboxMessage(protector, row)) as InvitationMessage
}

it('an owner invites an address; its verified holder accepts with the code of the mail', async () => {
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
  const mail = await newestInvitationMail()
  expect(await invited.text()).not.toContain(mail.code)

  // #region accept
  // The accept page reads `flow` from the link's query and `code` from its fragment, then POSTs them
  // with the session of the invited, verified address (a GET never consumes an invitation).
  const link = new URL(mail.link)
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
