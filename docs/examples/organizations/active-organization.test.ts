// The active organization, as docs/organizations.md shows it: createActiveOrganizationRoutes on an Express
// server on loopback over memory stores, a member choosing an organization for the session, route code
// reading it with activeOrganizationOf, and the choice gone once the member is removed.
import type { AddressInfo } from 'node:net'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  LocalAccounts,
  MemoryRateLimitStore,
  MemorySessionStore,
  PASSWORD_ACCEPTED,
} from '@portcullis/core/local-accounts'
import {
  activeOrganizationOf,
  MemoryOrganizationStore,
  membershipResolver,
} from '@portcullis/core/organizations'
import { required } from '@portcullis/core/policy'
import { MemoryRevocationNotices } from '@portcullis/core/revocation'
import { createActiveOrganizationRoutes, createSecurity, localAccountRoutes } from '@portcullis/express'
import express from 'express'
import { afterAll, expect, it } from 'vitest'
import { plainHasher } from '../../test/support/example-hasher.js'
import { signInOverHttp } from '../../test/support/example-sign-in.js'

// Tests only: a hasher without cost (an application uses @portcullis/argon2).
const hasher = plainHasher
const ORIGIN = 'http://127.0.0.1'
const notices = new MemoryRevocationNotices()
const organizations = new MemoryOrganizationStore({ notices })
const sessions = new MemorySessionStore({ notices }) // or PostgresSessionStore: the same one statement per read
const accounts = new MemoryAccountStore({ cascade: [sessions, organizations], notices })
const local = new LocalAccounts({
  profile: 'session',
  accounts,
  sessions,
  rateLimits: new MemoryRateLimitStore(),
  hasher,
  passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
  publicOrigin: ORIGIN,
  registration: 'open',
  revocation: { notices },
})

// #region routes
const security = createSecurity({
  mechanisms: local.mechanisms,
  authorizationResolver: membershipResolver({ memberships: organizations, notices }),
})
const app = express()
app.use(security.middleware)
app.use(localAccountRoutes({ local, security })) // sign-in, and the CSRF check of every session POST
app.use(createActiveOrganizationRoutes({ local, memberships: organizations, security }))
// Fastify: createActiveOrganizationRoutes(fastify, { ... }); Hono: createActiveOrganizationRoutes(app,
// security, { ... }); the fetch form: createFetchSecurity({ activeOrganization: { ... }, ... }).
// #endregion routes

// #region route-code
const router = security.router()
router.get('/dashboard', { auth: required() }, (req, res) => {
  const active = activeOrganizationOf(req.security.snapshot)
  // { organizationId: 'acme', roles: ['owner', ...] } while the account is a member, else undefined
  res.json({ organization: active?.organizationId ?? null, roles: active?.roles ?? [] })
})
app.use(router)
// #endregion route-code

const server = app.listen(0, '127.0.0.1')
await new Promise<void>((resolve) => server.once('listening', () => resolve()))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const signIn = (username: string) => signInOverHttp(base, local, username)

it('a member chooses an organization for the session; route code reads it; another is 404', async () => {
  const ada = await signIn('ada')
  const eve = await signIn('eve')
  const now = new Date()
  await organizations.createOrganization({
    organizationId: 'acme',
    name: 'Acme',
    ownerAccountId: ada.accountId,
    now,
  })
  await organizations.createOrganization({
    organizationId: 'evil',
    name: 'Evil',
    ownerAccountId: eve.accountId,
    now,
  })

  // #region choose
  const chosen = await ada.post('/auth/active-organization', { organizationId: 'acme' })
  // 200 { organizationId: 'acme', role: 'owner' }: the role read from the membership store
  const elsewhere = await ada.post('/auth/active-organization', { organizationId: 'evil' })
  // 404 organizations.not_found: the same answer as for an organization that does not exist
  await ada.post('/auth/active-organization', { organizationId: null }) // clears it
  // #endregion choose
  expect(chosen.status).toBe(200)
  expect(await chosen.json()).toEqual({ organizationId: 'acme', role: 'owner' })
  expect(elsewhere.status).toBe(404)
  expect(((await elsewhere.json()) as { code: string }).code).toBe('organizations.not_found')
  expect(await (await ada.get('/auth/active-organization')).json()).toEqual({
    organizationId: null,
    role: null,
  })

  await ada.post('/auth/active-organization', { organizationId: 'acme' })
  const dashboard = (await (await ada.get('/dashboard')).json()) as { organization: string; roles: string[] }
  expect(dashboard.organization).toBe('acme')
  expect(dashboard.roles).toContain('owner')

  // The organization goes (its last member deletes it): the session still names it, nothing shows it.
  await organizations.deleteOrganization({ organizationId: 'acme', actorAccountId: ada.accountId, now })
  expect(await (await ada.get('/dashboard')).json()).toEqual({ organization: null, roles: [] })
  expect(await (await ada.get('/auth/active-organization')).json()).toEqual({
    organizationId: null,
    role: null,
  })
})
