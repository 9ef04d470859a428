// The organization-domain routes over HTTP (supertest on a real Express app, a real DNS server on
// loopback): an owner claims and verifies; a member of another role is 403; an organization the caller
// does not belong to and another organization's claim id are 404 whatever exists; the role comes from the
// membership store, never from the request; refusals are problem+json with stable codes; OpenAPI.
import { randomBytes } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { CodeKeyRing } from '@portcullis/core/codes'
import { LocalAccounts, MemoryRateLimitStore, MemorySessionStore } from '@portcullis/core/local-accounts'
import type { InvitationMessage } from '@portcullis/core/mail'
import { MemoryMailOutbox, openOutboxMessage } from '@portcullis/core/mail'
import {
  createOrganizationDomains,
  MemoryOrganizationDomainStore,
  systemDnsTxtResolver,
} from '@portcullis/core/organization-domains'
import { MemoryOrganizationStore, OrganizationInvitations } from '@portcullis/core/organizations'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { freeMailDomains } from '@portcullis/http/organizations'
import { commonPasswordScreen } from '@portcullis/password-blocklist'
import { startTestDnsServer } from '@portcullis/test-support/dns-server'
import express from 'express'
import request from 'supertest'
import { afterAll, describe, expect, it } from 'vitest'
import { createOrganizationDomainRoutes, createSecurity, localAccountRoutes } from '../../src/index.js'
import {
  cookiesOf,
  ORIGIN,
  PASSWORD,
  SAME_ORIGIN,
  SESSION_COOKIE,
  scryptHasher,
} from '../local-accounts/fixture.js'

const dns = await startTestDnsServer()
afterAll(() => dns.close())

async function domainApp() {
  const outbox = new MemoryMailOutbox()
  const organizations = new MemoryOrganizationStore({ outbox })
  const sessions = new MemorySessionStore()
  const accounts = new MemoryAccountStore({ cascade: [sessions, organizations] })
  const local = new LocalAccounts({
    profile: 'session',
    accounts,
    sessions,
    rateLimits: new MemoryRateLimitStore(),
    hasher: scryptHasher(),
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: commonPasswordScreen(),
  })
  const store = new MemoryOrganizationDomainStore()
  const domains = createOrganizationDomains({
    store,
    freeMailDomains: await freeMailDomains(),
    resolver: systemDnsTxtResolver({ servers: [dns.server], timeoutMs: 500, tries: 1 }),
  })
  const security = createSecurity({
    mechanisms: local.mechanisms,
    openapi: { info: { title: 'organization domains', version: '1' } },
  })
  const app = express()
  app.use(security.middleware)
  app.use(localAccountRoutes({ local, security }))
  app.use(createOrganizationDomainRoutes({ security, local, domains, memberships: organizations, accounts }))
  app.get('/openapi.json', (_request, response) => {
    response.json(security.openapi())
  })
  const signIn = async (username: string) => {
    const credentials = { username, password: PASSWORD }
    await request(app).post('/auth/register').set(SAME_ORIGIN).send(credentials).expect(201)
    const login = await request(app).post('/auth/login').set(SAME_ORIGIN).send(credentials)
    expect(login.status).toBe(200)
    // `__Host-` cookies are `Secure`: this plain-HTTP client carries the session cookie by hand.
    const cookie = cookiesOf(login).get(SESSION_COOKIE) ?? ''
    return {
      accountId: login.body.accountId as string,
      get: (path: string) => request(app).get(path).set('cookie', cookie),
      post: (path: string) => request(app).post(path).set(SAME_ORIGIN).set('cookie', cookie),
    }
  }
  const protector = new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
  })
  const invitations = new OrganizationInvitations({
    invitations: organizations,
    organizations,
    memberships: organizations,
    keyRing: new CodeKeyRing({ version: 1, secret: randomBytes(32) }),
    protector,
    publicOrigin: ORIGIN,
  })
  /** Makes `accountId` a member of `organizationId` with `role`, through a real invitation. */
  const join = async (organizationId: string, inviter: string, accountId: string, role: string) => {
    const address = `${accountId}@people.example`
    const now = new Date()
    await accounts.addEmailAddress({ accountId, address, now })
    await accounts.verifyEmailAddress({ accountId, address, now })
    const invitation = await invitations.invite({ organizationId, inviterAccountId: inviter, address, role })
    const row = outbox.pending().at(-1)
    if (row === undefined) throw new Error('no invitation mail')
    const mail = (await openOutboxMessage(protector, row)) as InvitationMessage
    await invitations.accept({ invitationId: invitation.invitationId, code: mail.code, accountId })
  }
  return { app, organizations, accounts, store, signIn, join }
}

const domainName = () => `corp-${randomBytes(6).toString('hex')}.example`

describe('organization domain routes (Express)', () => {
  it('lets an owner claim, answers 409 until the record is published, then verifies', async () => {
    const { organizations, signIn } = await domainApp()
    const owner = await signIn('olive')
    await organizations.createOrganization({
      organizationId: 'acme',
      name: 'Acme',
      ownerAccountId: owner.accountId,
      now: new Date(),
    })
    const name = domainName()
    const claimed = await owner.post('/auth/organizations/acme/domains').send({ domain: name.toUpperCase() })
    expect(claimed.status).toBe(201)
    expect(claimed.headers['cache-control']).toBe('no-store')
    expect(claimed.body).toMatchObject({
      domain: name,
      verifiedAt: null,
      recordName: `_portcullis-challenge.${name}`,
    })
    const id = claimed.body.id as string

    const early = await owner.post(`/auth/organizations/acme/domains/${id}/verify`)
    expect(early.status).toBe(409)
    expect(early.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(early.body.code).toBe('organization_domains.record_missing')
    expect(JSON.stringify(early.body)).not.toContain(claimed.body.recordValue)

    dns.setTxt(claimed.body.recordName, [claimed.body.recordValue])
    const verified = await owner.post(`/auth/organizations/acme/domains/${id}/verify`)
    expect(verified.status).toBe(200)
    expect(verified.body.verifiedAt).toEqual(expect.any(String))
    const listed = await owner.get('/auth/organizations/acme/domains')
    expect(listed.body.domains).toHaveLength(1)
  })

  it('refuses free-mail domains, malformed ones and unknown members of the body', async () => {
    const { organizations, signIn } = await domainApp()
    const owner = await signIn('olive')
    await organizations.createOrganization({
      organizationId: 'acme',
      name: 'Acme',
      ownerAccountId: owner.accountId,
      now: new Date(),
    })
    for (const [body, code] of [
      [{ domain: 'gmail.com' }, 'organization_domains.free_mail'],
      [{ domain: 'mail.outlook.com' }, 'organization_domains.free_mail'],
      [{ domain: 'example.com/evil' }, 'organization_domains.invalid_domain'],
      [{ domain: 'localhost' }, 'organization_domains.invalid_domain'],
      [{ domain: domainName(), role: 'owner' }, 'organization_domains.invalid_input'],
      [{ domain: domainName(), enrollment: 'everyone' }, 'organization_domains.invalid_input'],
    ] as const) {
      const answer = await owner.post('/auth/organizations/acme/domains').send(body)
      expect(answer.status, JSON.stringify(body)).toBe(400)
      expect(answer.body.code).toBe(code)
    }
    expect((await owner.get('/auth/organizations/acme/domains')).body.domains).toEqual([])
  })

  it("answers 404 for an organization the caller is not in and for another organization's claim id", async () => {
    const { organizations, signIn } = await domainApp()
    const owner = await signIn('olive')
    const intruder = await signIn('mallory')
    await organizations.createOrganization({
      organizationId: 'acme',
      name: 'Acme',
      ownerAccountId: owner.accountId,
      now: new Date(),
    })
    await organizations.createOrganization({
      organizationId: 'evil',
      name: 'Evil',
      ownerAccountId: intruder.accountId,
      now: new Date(),
    })
    const claimed = await owner.post('/auth/organizations/acme/domains').send({ domain: domainName() })
    const id = claimed.body.id as string
    dns.setTxt(claimed.body.recordName, [claimed.body.recordValue])

    // Not a member of acme: the same 404 as an organization that does not exist.
    for (const path of ['acme', 'no-such-organization']) {
      const listed = await intruder.get(`/auth/organizations/${path}/domains`)
      expect(listed.status).toBe(404)
      expect(listed.body.code).toBe('organizations.not_found')
    }
    expect((await intruder.post(`/auth/organizations/acme/domains/${id}/verify`)).status).toBe(404)
    // Their own organization in the path, acme's claim id: not found, nothing changed.
    for (const action of ['verify', 'remove']) {
      const answer = await intruder.post(`/auth/organizations/evil/domains/${id}/${action}`)
      expect(answer.status, action).toBe(404)
      expect(answer.body.code).toBe('organization_domains.not_found')
    }
    const changed = await intruder
      .post(`/auth/organizations/evil/domains/${id}/enrollment`)
      .send({ enrollment: 'automatic-invitation' })
    expect(changed.status).toBe(404)
    const [kept] = (await owner.get('/auth/organizations/acme/domains')).body.domains
    expect(kept).toMatchObject({ id, verifiedAt: null, enrollment: 'manual-invitation' })
  })

  it('refuses a member whose stored role may not manage domains, whatever the request says', async () => {
    const { organizations, signIn, join } = await domainApp()
    const owner = await signIn('olive')
    const member = await signIn('bob')
    await organizations.createOrganization({
      organizationId: 'acme',
      name: 'Acme',
      ownerAccountId: owner.accountId,
      now: new Date(),
    })
    await join('acme', owner.accountId, member.accountId, 'admin')
    const refused = await member
      .post('/auth/organizations/acme/domains')
      .set('x-portcullis-role', 'owner')
      .send({ domain: domainName() })
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('organization_domains.forbidden')
    expect((await member.get('/auth/organizations/acme/domains')).status).toBe(403)
  })

  it('offers a verified domain in a non-manual mode to a verified address at it, and documents the routes', async () => {
    const { app, organizations, accounts, signIn } = await domainApp()
    const owner = await signIn('olive')
    const person = await signIn('ada')
    await organizations.createOrganization({
      organizationId: 'acme',
      name: 'Acme',
      ownerAccountId: owner.accountId,
      now: new Date(),
    })
    const name = domainName()
    const claimed = await owner
      .post('/auth/organizations/acme/domains')
      .send({ domain: name, enrollment: 'automatic-suggestion' })
    const now = new Date()
    await accounts.addEmailAddress({ accountId: person.accountId, address: `ada@${name}`, now })
    await accounts.verifyEmailAddress({ accountId: person.accountId, address: `ada@${name}`, now })
    expect((await person.get('/auth/organization-offers')).body.offers).toEqual([])
    dns.setTxt(claimed.body.recordName, [claimed.body.recordValue])
    await owner.post(`/auth/organizations/acme/domains/${claimed.body.id}/verify`).expect(200)
    expect((await person.get('/auth/organization-offers')).body.offers).toEqual([
      { organizationId: 'acme', domainId: claimed.body.id, domain: name, mode: 'automatic-suggestion' },
    ])
    const document = (await request(app).get('/openapi.json')).body
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/auth/organizations/{organizationId}/domains',
        '/auth/organizations/{organizationId}/domains/{domainId}/verify',
        '/auth/organization-offers',
      ]),
    )
    expect(JSON.stringify(document)).not.toContain(claimed.body.recordValue)
  })

  it('answers 503 with Retry-After when DNS does not answer, and verifies nothing', async () => {
    const { organizations, signIn } = await domainApp()
    const owner = await signIn('olive')
    await organizations.createOrganization({
      organizationId: 'acme',
      name: 'Acme',
      ownerAccountId: owner.accountId,
      now: new Date(),
    })
    const claimed = await owner.post('/auth/organizations/acme/domains').send({ domain: domainName() })
    dns.setTxt(claimed.body.recordName, [claimed.body.recordValue])
    dns.fail(claimed.body.recordName, 'SERVFAIL')
    const answer = await owner.post(`/auth/organizations/acme/domains/${claimed.body.id}/verify`)
    expect(answer.status).toBe(503)
    expect(answer.headers['retry-after']).toBe('30')
    expect(answer.body.code).toBe('organization_domains.unavailable')
    expect((await owner.get('/auth/organizations/acme/domains')).body.domains[0].verifiedAt).toBeNull()
  })
})
