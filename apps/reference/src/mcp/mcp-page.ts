import { readdirSync } from 'node:fs'
import type { MCPResourceRegistry } from '@portcullis/core/mcp'
import { optional, required } from '@portcullis/core/policy'
import type { ResourceRoutePath, SecureRouter, Security } from '@portcullis/express'
import { SESSION_MECHANISM } from '../accounts/local-accounts.js'
import type { ReferenceContext } from '../app-context.js'
import { html, type SafeHtml } from '../layout/html.js'
import { sendPage, viewerFor } from '../layout/layout.js'
import { MCP_PATH, MCP_SCHEME, SKILLS_DIRECTORY } from './mcp-endpoint.js'

/** The resources the endpoint publishes, once `attach()` resolved (undefined before). */
export type RegistryHolder = () => MCPResourceRegistry<ResourceRoutePath> | undefined

interface Row {
  readonly uri: string
  readonly title: string
  readonly mimeType: string
  readonly description: string
}

function rows(registry: MCPResourceRegistry<ResourceRoutePath> | undefined): readonly Row[] {
  const fixed: Row[] = [
    {
      uri: `${MCP_SCHEME}://openapi`,
      title: 'OpenAPI document',
      mimeType: 'application/json',
      description: 'Every HTTP route of the app',
    },
  ]
  for (const skill of readdirSync(SKILLS_DIRECTORY).filter((name) => !name.startsWith('.'))) {
    fixed.push({
      uri: `skill://${skill}/SKILL.md`,
      title: `Skill ${skill}`,
      mimeType: 'text/markdown',
      description: 'with its reference files',
    })
  }
  const handlers = [...(registry?.resources ?? []), ...(registry?.templates ?? [])].map((resource) => ({
    uri: resource.kind === 'template' ? resource.uriTemplate : resource.uri,
    title: resource.title ?? resource.name,
    mimeType: resource.mimeType ?? '',
    description: `${resource.description ?? ''}${resource.kind === 'template' ? ' (template)' : ''}`,
  }))
  return [...fixed, ...handlers]
}

function snippets(origin: string): SafeHtml {
  const endpoint = `${origin}${MCP_PATH}`
  const oauthConfig = JSON.stringify(
    { mcpServers: { 'portcullis-reference': { type: 'http', url: endpoint } } },
    null,
    2,
  )
  const clientConfig = JSON.stringify(
    {
      mcpServers: {
        'portcullis-reference': {
          type: 'http',
          url: endpoint,
          // biome-ignore lint/suspicious/noTemplateCurlyInString: MCP clients expand ${VAR} from their environment
          headers: { 'X-API-Key': '${PORTCULLIS_API_KEY}' },
        },
      },
    },
    null,
    2,
  )
  const sdk = `import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

const client = new Client({ name: 'my-agent', version: '1.0.0' })
await client.connect(
  new StreamableHTTPClientTransport(new URL('${endpoint}'), {
    requestInit: { headers: { 'X-API-Key': process.env.PORTCULLIS_API_KEY ?? '' } },
  }),
)
console.log(await client.listResources())
console.log(await client.readResource({ uri: '${MCP_SCHEME}://capabilities' }))`
  const curl = `curl -s ${endpoint} -H "X-API-Key: $PORTCULLIS_API_KEY" \\
  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \\
  -d '{"jsonrpc":"2.0","id":1,"method":"resources/list"}'`
  return html`<h2>Connect a client</h2>
  <h3>With your account (OAuth)</h3>
  <p>Give the client this URL and nothing else: <code data-testid="mcp-url">${endpoint}</code>. The client
  finds this app's authorization server from the endpoint's first <code>401</code>, identifies itself by its
  client metadata document, and sends you here to sign in (password and second step, passkey or the demo
  IdP) and approve it. You see its host, the scopes and this endpoint before you approve. Its tokens are
  bound to this endpoint, last five minutes, and stop working everywhere the moment you disconnect it on
  <a href="/connected-apps">Connected apps</a>.</p>
  <pre data-testid="oauth-config">${oauthConfig}</pre>
  <h3>With an API key</h3>
  <p>Issue a key on the <a href="/keys">API-key page</a> (or mint a workload token with the CLI and send
  <code>Authorization: Bearer …</code> instead), put it in <code>PORTCULLIS_API_KEY</code>, then:</p>
  <h4>MCP client configuration (Streamable HTTP)</h4>
  <pre data-testid="client-config">${clientConfig}</pre>
  <h4>TypeScript SDK</h4>
  <pre>${sdk}</pre>
  <h4>curl</h4>
  <pre>${curl}</pre>`
}

/** `/agents`: what the MCP endpoint publishes and how to connect to it. Public: it shows no data. */
export function mcpPageRoutes(
  security: Pick<Security, 'router'>,
  context: ReferenceContext,
  registry: RegistryHolder,
): SecureRouter {
  const router = security.router()
  router.get('/agents', { auth: optional(required(SESSION_MECHANISM)) }, async (request, response) => {
    sendPage(response, {
      title: 'MCP: resources for AI agents',
      area: 'mcp',
      viewer: await viewerFor(request.security, context.directory),
      body: html`<p class="lead">Read-only routes of this app are published as Model Context Protocol resources at
        <code>${context.publicOrigin}${MCP_PATH}</code>. A read runs the route in-process with the agent's own
        credential, so the route's policy and guards decide: a tenant projection of another tenant fails with 403.</p>
        <h2>Published resources</h2>
        <table data-testid="resources"><thead><tr><th>URI</th><th>Title</th><th>Type</th><th>Description</th></tr></thead>
        <tbody>${rows(registry()).map(
          (row) =>
            html`<tr><td><code>${row.uri}</code></td><td>${row.title}</td><td><code>${row.mimeType}</code></td><td>${row.description}</td></tr>`,
        )}</tbody></table>
        ${snippets(context.publicOrigin)}`,
    })
  })
  return router
}
