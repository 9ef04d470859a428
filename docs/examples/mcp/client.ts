// Connecting with the official MCP TypeScript SDK client over Streamable HTTP.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'

const token = process.env.BILLING_TOKEN ?? ''
// #region connecting-a-client
const client = new Client({ name: 'billing-agent', version: '1.0.0' })
await client.connect(
  new StreamableHTTPClientTransport(new URL('https://billing.example.com/mcp'), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  }),
)

const { resources } = await client.listResources()
const { resourceTemplates } = await client.listResourceTemplates()
// #endregion connecting-a-client
console.log(
  resources.map((resource) => resource.uri),
  resourceTemplates.map((template) => template.uriTemplate),
)

try {
  const report = await client.readResource({ uri: 'tenant://acme/report' })
  console.log(report.contents)
} catch (error) {
  if (error instanceof McpError && error.code === -32603) {
    // The route answered an error status: e.g. 403 when the caller lacks a tenant role.
    console.error('read failed with HTTP status', (error.data as { statusCode: number }).statusCode)
  } else if (error instanceof McpError && error.code === -32602) {
    console.error('no such resource', error.data)
  } else throw error
}
await client.close()
