import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { call } from './http-client.js'
import { MCP_AUTHORIZATION_SERVER, MCP_RESOURCE, mcpWorld } from './mcp-world.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

export async function connect(url: string, token: string) {
  const errors: unknown[] = []
  const client = new Client({ name: 'portcullis-conformance', version: '1.0.0' })
  client.onerror = (error) => errors.push(error)
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  })
  await client.connect(transport)
  return { client, errors }
}

/** The text of a read, or the JSON-RPC error code and the route's status of a refused one. */
export async function read(
  client: Client,
  uri: string,
): Promise<{ text?: string; code?: number; status?: unknown }> {
  try {
    const [item] = (await client.readResource({ uri })).contents
    return item !== undefined && 'text' in item ? { text: item.text } : {}
  } catch (error) {
    const failure = error as { code?: number; data?: { statusCode?: unknown } }
    return { ...(failure.code === undefined ? {} : { code: failure.code }), status: failure.data?.statusCode }
  }
}

export const mcpCases: readonly Case[] = [
  conformanceCase(
    'adapter.mcp-list-read',
    'the official SDK client lists the marked routes and reads each one through its own policy and guards',
    async (fixture, check) => {
      const { scenario } = mcpWorld()
      const app = await fixture.start(scenario)
      const { client, errors } = await connect(app.url, 'bob-token')
      const { resources } = await client.listResources()
      const uris = resources.map((resource) => resource.uri)
      check(uris[0] === 'app://openapi', `first resource ${uris[0]}`)
      check(uris.includes('app://plans') && uris.includes('app://reports'), `listed ${uris.join(', ')}`)
      const { resourceTemplates } = await client.listResourceTemplates()
      check(
        resourceTemplates.some((template) => template.uriTemplate === 'tenant://{tenantId}/report'),
        'the template is not listed',
      )
      const plans = await read(client, 'app://plans')
      check(JSON.parse(plans.text ?? 'null')?.[0]?.id === 'team', `plans: ${JSON.stringify(plans)}`)
      const denied = await read(client, 'app://reports')
      check(denied.code === -32603 && denied.status === 403, `bob read reports: ${JSON.stringify(denied)}`)
      const foreign = await read(client, 'tenant://acme/report')
      check(foreign.code === -32603 && foreign.status === 403, `bob read acme: ${JSON.stringify(foreign)}`)
      const openapi = await read(client, 'app://openapi')
      check(
        (JSON.parse(openapi.text ?? '{}') as { openapi?: string }).openapi === '3.1.0',
        'openapi resource',
      )
      const unknown = await read(client, 'app://nothing')
      check(unknown.code === -32602, `unknown URI: ${JSON.stringify(unknown)}`)
      await client.close()
      check(errors.length === 0, `client errors: ${errors.map(String).join('; ')}`)

      const owner = await connect(app.url, 'alice-token')
      const report = await read(owner.client, 'app://reports')
      check(JSON.parse(report.text ?? '{}').for === 'alice', `alice read reports: ${JSON.stringify(report)}`)
      const own = await read(owner.client, 'tenant://acme/report')
      check(JSON.parse(own.text ?? '{}').tenant === 'acme', `alice read acme: ${JSON.stringify(own)}`)
      const escaped = await read(owner.client, 'tenant://globex%2F..%2Facme/report')
      check(
        escaped.code !== undefined,
        `an encoded path in a template variable was read: ${JSON.stringify(escaped)}`,
      )
      await owner.client.close()
    },
  ),
  conformanceCase(
    'adapter.mcp-one-authentication',
    'an MCP read runs the mechanism once for the whole request, the read route included',
    async (fixture, check) => {
      const { scenario, counter } = mcpWorld()
      const app = await fixture.start(scenario)
      const headers = {
        authorization: 'Bearer alice-token',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      }
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'resources/read',
        params: { uri: 'app://reports' },
      })
      const before = counter.calls
      const answer = await call(app.url, '/mcp', { method: 'POST', headers, body })
      check(answer.status === 200, `status ${answer.status}`)
      const result = answer.json() as { result?: { contents?: { text?: string }[] } }
      check(JSON.parse(result.result?.contents?.[0]?.text ?? '{}').for === 'alice', answer.text)
      check(counter.calls - before === 1, `the mechanism ran ${counter.calls - before} times`)
    },
  ),
  conformanceCase(
    'adapter.mcp-transport',
    'the endpoint challenges with RFC 9728 metadata, answers 405 to GET and serves the metadata document',
    async (fixture, check) => {
      const app = await fixture.start(mcpWorld().scenario)
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
      const anonymous = await call(app.url, '/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      check(anonymous.status === 401, `anonymous POST: ${anonymous.status}`)
      const challenge = anonymous.headers['www-authenticate'] ?? ''
      check(
        /^Bearer\b/.test(challenge) && challenge.includes('resource_metadata='),
        `challenge: ${challenge}`,
      )
      const get = await call(app.url, '/mcp')
      check(
        get.status === 405 && get.headers.allow === 'POST',
        `GET: ${get.status} allow ${get.headers.allow}`,
      )
      const metadata = await call(app.url, '/.well-known/oauth-protected-resource/mcp')
      check(metadata.status === 200, `metadata: ${metadata.status}`)
      const published = metadata.json() as { resource?: string; authorization_servers?: unknown }
      check(published.resource === MCP_RESOURCE, 'metadata resource')
      // issuer identifiers compare as exact strings (RFC 8414 section 3.3): published as configured
      check(
        JSON.stringify(published.authorization_servers) === JSON.stringify([MCP_AUTHORIZATION_SERVER]),
        `metadata authorization_servers: ${JSON.stringify(published.authorization_servers)}`,
      )
      const foreign = await call(app.url, '/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: 'https://evil.example',
          authorization: 'Bearer alice-token',
        },
        body,
      })
      check(foreign.status === 403, `a foreign Origin: ${foreign.status}`)
    },
  ),
  conformanceCase(
    'adapter.mcp-modern-revision',
    'the 2026-07-28 revision discovers the server and reads with caching hints derived from the route policy',
    async (fixture, check) => {
      const app = await fixture.start(mcpWorld().scenario)
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      }
      const post = (method: string, params: Record<string, unknown>, extra: Record<string, string> = {}) =>
        call(app.url, '/mcp', {
          method: 'POST',
          headers: {
            authorization: 'Bearer alice-token',
            'content-type': 'application/json',
            accept: 'application/json',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': method,
            ...extra,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
        })
      const discover = await post('server/discover', {})
      const discovered = discover.json() as { result?: { resultType?: string } }
      check(discover.status === 200 && discovered.result?.resultType === 'complete', discover.text)
      const plans = (
        await post('resources/read', { uri: 'app://plans' }, { 'mcp-name': 'app://plans' })
      ).json() as {
        result?: { cacheScope?: string }
      }
      check(plans.result?.cacheScope === 'public', `anonymous route cacheScope ${plans.result?.cacheScope}`)
      const reports = (
        await post('resources/read', { uri: 'app://reports' }, { 'mcp-name': 'app://reports' })
      ).json() as {
        result?: { cacheScope?: string }
      }
      check(
        reports.result?.cacheScope === 'private',
        `authenticated route cacheScope ${reports.result?.cacheScope}`,
      )
    },
  ),
]
