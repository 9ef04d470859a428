import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from './support/reference-app.js'

/**
 * The official MCP SDK client (1.x, Streamable HTTP) against the running reference app: it lists and
 * reads the published resources with an API key of a demo user and with a demo workload token, and every
 * read is decided by the route's own policy and guards.
 */
let app: TestApp
const clients: Client[] = []
/** An owner's tenant roles: the role, then the four permissions of the organization store. */
const OWNER = [
  'owner',
  'organization.members.manage',
  'organization.invitations.manage',
  'organization.rename',
  'organization.delete',
]

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(async () => {
  for (const client of clients) await client.close()
  await app?.close()
})

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'reference-test-agent', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers } }),
  )
  clients.push(client)
  return client
}

async function readFailure(client: Client, uri: string): Promise<McpError> {
  try {
    await client.readResource({ uri })
  } catch (error) {
    if (error instanceof McpError) return error
    throw error
  }
  throw new Error(`${uri} was readable`)
}

const textOf = (contents: readonly unknown[]) =>
  JSON.parse((contents[0] as { text: string }).text) as Record<string, unknown>

describe('an MCP SDK client with the API key of a demo user', () => {
  let client: Client

  beforeAll(async () => {
    const key = await app.apiKeys.issue({ ownerId: 'demo-alice', ownerKind: 'user', label: 'mcp test' })
    client = await connect({ 'X-API-Key': key.value })
  })

  it('lists the published resources, the skills and the tenant template', async () => {
    const { resources } = await client.listResources()
    expect(resources.map((resource) => resource.uri)).toEqual([
      'reference://openapi',
      'skill://portcullis-reference/SKILL.md',
      'skill://portcullis-reference/references/credentials.md',
      'reference://capabilities',
      'reference://tenant-projection-schema',
      'reference://usage-report',
    ])
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates).toEqual([
      expect.objectContaining({
        uriTemplate: 'tenant://{tenantId}/projection',
        mimeType: 'application/json',
      }),
    ])
  })

  it('reads the capability summary as the key owner, and the JSON schema', async () => {
    const capabilities = await client.readResource({ uri: 'reference://capabilities' })
    expect(textOf(capabilities.contents)).toMatchObject({
      // Her memberships: the role first, then its permissions (the owner's are the organization store's).
      you: { id: 'demo-alice', kind: 'user', tenants: { acme: OWNER, globex: ['viewer'] } },
    })
    const schema = await client.readResource({ uri: 'reference://tenant-projection-schema' })
    expect(schema.contents[0]?.mimeType).toBe('application/schema+json')
    expect(textOf(schema.contents)).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema' })
  })

  it('reads its own tenant through the template, and is refused another tenant (403 inside -32603)', async () => {
    const acme = await client.readResource({ uri: 'tenant://acme/projection' })
    expect(acme.contents[0]?.uri).toBe('tenant://acme/projection')
    expect(textOf(acme.contents)).toMatchObject({ tenant: { id: 'acme' }, viewer: { roles: OWNER } })
    for (const uri of ['tenant://initech/projection', 'tenant://globex/projection']) {
      const failure = await readFailure(client, uri)
      expect(failure.code).toBe(-32603)
      expect((failure.data as { statusCode: number }).statusCode).toBe(403)
    }
  })

  it('reads the binary usage report as a PDF blob, and a skill file as markdown', async () => {
    const report = await client.readResource({ uri: 'reference://usage-report' })
    const content = report.contents[0] as { blob?: string; mimeType?: string }
    expect(content.mimeType).toBe('application/pdf')
    const bytes = Buffer.from(content.blob ?? '', 'base64')
    expect(bytes.subarray(0, 8).toString('latin1')).toBe('%PDF-1.4')
    expect(bytes.toString('latin1')).toContain('Acme Corporation')
    const skill = await client.readResource({ uri: 'skill://portcullis-reference/SKILL.md' })
    expect((skill.contents[0] as { text: string }).text).toContain('name: portcullis-reference')
  })

  it('an unknown URI is -32602 naming only the URI', async () => {
    const failure = await readFailure(client, 'reference://nothing-here')
    expect(failure.code).toBe(-32602)
    expect(failure.data).toEqual({ uri: 'reference://nothing-here' })
  })
})

describe('an MCP SDK client with a demo workload token', () => {
  it('reads as the service, within the scopes the token carries', async () => {
    const token = await app.keys.workloadSigner.mint({
      subject: 'svc-reporting',
      scopes: ['reports:read'],
      lifetimeSeconds: 300,
    })
    const client = await connect({ Authorization: `Bearer ${token}` })
    const capabilities = await client.readResource({ uri: 'reference://capabilities' })
    expect(textOf(capabilities.contents)).toMatchObject({
      you: { id: 'svc-reporting', kind: 'service', scopes: ['reports:read'] },
    })
    const globex = await client.readResource({ uri: 'tenant://globex/projection' })
    expect(textOf(globex.contents)).toMatchObject({ viewer: { id: 'svc-reporting', roles: ['billing'] } })
    expect((await readFailure(client, 'tenant://initech/projection')).data).toMatchObject({ statusCode: 403 })
  })

  it('a token without reports:read cannot read the usage report', async () => {
    const token = await app.keys.workloadSigner.mint({
      subject: 'svc-reporting',
      scopes: ['other'],
      lifetimeSeconds: 300,
    })
    const client = await connect({ Authorization: `Bearer ${token}` })
    expect((await readFailure(client, 'reference://usage-report')).data).toMatchObject({ statusCode: 403 })
  })
})

describe('the MCP endpoint without a credential', () => {
  it('answers 401 before any JSON-RPC work', async () => {
    const response = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/list' }),
    })
    expect(response.status).toBe(401)
  })
})
