// The tenant guard and the MCP tenant template, unchanged, over memberships: membershipResolver fills the
// snapshot's tenants from a MemoryOrganizationStore (joined to the accounts, with revocation notices), so
// an owner reads `tenant://acme/report`, a member with the wrong role, an outsider and another tenant's
// URI are refused, and a removed member is refused on the next request.
import { randomUUID } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { type AuthenticationMechanism, authenticated, invalid, none } from '@portcullis/core/authentication'
import { requiresTenantRole } from '@portcullis/core/authorization'
import { CodeKeyRing, generateFlowId } from '@portcullis/core/codes'
import { MemoryOrganizationStore, membershipResolver } from '@portcullis/core/organizations'
import { required } from '@portcullis/core/policy'
import { MemoryRevocationNotices } from '@portcullis/core/revocation'
import express, { type Express } from 'express'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { createSecurity } from '../../src/index.js'
import { createMCPEndpoint } from '../../src/mcp/index.js'
import { call, rpc } from './fixture.js'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'
const now = new Date()
const ring = new CodeKeyRing({ version: 1, secret: new Uint8Array(32).fill(3) })
const notices = new MemoryRevocationNotices()
const organizations = new MemoryOrganizationStore({ notices })
const accounts = new MemoryAccountStore({ cascade: [organizations], notices })
const ids = { owner: randomUUID(), admin: randomUUID(), outsider: randomUUID() }
const tokens: Record<string, string> = {
  'owner-token': ids.owner,
  'admin-token': ids.admin,
  'outsider-token': ids.outsider,
}

const bearer: AuthenticationMechanism = {
  name: 'bearer',
  securityScheme: { type: 'http', scheme: 'bearer' },
  async authenticate(source) {
    const header = source.header('authorization')
    if (header === undefined) return none()
    const token = /^Bearer (\S+)$/.exec(header)?.[1]
    const id = token === undefined || !Object.hasOwn(tokens, token) ? undefined : tokens[token]
    if (id === undefined) return invalid('unknown token')
    return authenticated({ id, kind: 'user' }, { mechanism: 'bearer', credentialType: 'static-token' })
  },
}

async function tenantApp(): Promise<Express> {
  for (const accountId of Object.values(ids)) {
    await accounts.createAccount({ accountId, username: `u-${accountId}`, passwordHash: HASH, now })
  }
  await organizations.createOrganization({
    organizationId: 'acme',
    name: 'Acme',
    ownerAccountId: ids.owner,
    now,
  })
  await organizations.createOrganization({
    organizationId: 'globex',
    name: 'Globex',
    ownerAccountId: ids.outsider,
    now,
  })
  await accounts.addEmailAddress({ accountId: ids.admin, address: 'admin@example.com', now })
  await accounts.verifyEmailAddress({ accountId: ids.admin, address: 'admin@example.com', now })
  const security = createSecurity({
    mechanisms: [bearer],
    authorizationResolver: membershipResolver({ memberships: organizations, notices }),
    openapi: { info: { title: 'Tenant API', version: '2.0.0' } },
  })
  const app = express()
  app.use(security.middleware)
  const mcp = createMCPEndpoint({
    security,
    auth: required('bearer'),
    protectedResource: {
      resource: 'https://tenants.example/mcp',
      authorizationServers: ['https://id.example'],
    },
  })
  app.use(mcp)
  const router = security.router()
  router.get(
    '/tenants/:tenantId/report',
    {
      guards: [requiresTenantRole({ roles: ['owner', 'admin'] })],
      mcpResource: 'tenant-report',
      mcpResourceTemplate: 'tenant://{tenantId}/report',
      mcpResourceMimeType: 'application/json',
    },
    (req, res) => {
      res.json({ tenant: req.params.tenantId, viewer: req.security.principal?.id })
    },
  )
  app.use(router)
  await mcp.attach(app)
  return app
}

let app: Express
beforeAll(async () => {
  app = await tenantApp()
})

const as = (token: string) => ({ Authorization: `Bearer ${token}` })
const read = (uri: string, token: string) => rpc(app, call('resources/read', { uri }), as(token))
const status = async (uri: string, token: string) => {
  const response = await read(uri, token)
  return response.body.result === undefined ? response.body.error.data.statusCode : 200
}

describe('requiresTenantRole and MCP tenant templates over memberships', () => {
  it('lets the owner read its tenant, over HTTP and MCP, and refuses another tenant by URI or path', async () => {
    expect(await status('tenant://acme/report', 'owner-token')).toBe(200)
    expect(await status('tenant://globex/report', 'owner-token')).toBe(403)
    expect((await request(app).get('/tenants/acme/report').set(as('owner-token'))).status).toBe(200)
    expect((await request(app).get('/tenants/globex/report').set(as('owner-token'))).status).toBe(403)
    expect(await status('tenant://acme/report', 'outsider-token')).toBe(403)
  })

  it('follows the store: an accepted invitation grants at once, a removed member is refused on the next request', async () => {
    expect(await status('tenant://acme/report', 'admin-token')).toBe(403)
    const invitationId = generateFlowId()
    const code = 'JOIN23456789'
    const { digest, keyVersion } = ring.issueDigest({ id: invitationId, purpose: 'invitation', code })
    const issued = await organizations.issueInvitation({
      invitation: {
        invitationId,
        organizationId: 'acme',
        address: 'admin@example.com',
        role: 'admin',
        inviterAccountId: ids.owner,
        digest,
        keyVersion,
        createdAt: now,
        expiresAt: new Date(now.getTime() + 86_400_000),
      },
      now,
    })
    expect(issued.outcome).toBe('issued')
    const candidates = ring.candidates({ id: invitationId, purpose: 'invitation', code })
    const accepted = await organizations.acceptInvitation({
      invitationId,
      candidates,
      accountId: ids.admin,
      now,
    })
    expect(accepted.outcome).toBe('accepted')
    expect(await status('tenant://acme/report', 'admin-token')).toBe(200)
    const removed = await organizations.removeMember({
      organizationId: 'acme',
      actorAccountId: ids.owner,
      accountId: ids.admin,
      now,
    })
    expect(removed.outcome).toBe('removed')
    expect(await status('tenant://acme/report', 'admin-token')).toBe(403)
    expect((await request(app).get('/tenants/acme/report').set(as('admin-token'))).status).toBe(403)
  })
})
