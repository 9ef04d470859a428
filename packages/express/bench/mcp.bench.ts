// `resources/read` of one JSON resource: the Portcullis MCP endpoint (which runs the marked GET route
// in-process through the Express pipeline) against (1) the official SDK's stateless Streamable HTTP server
// (a fresh McpServer + StreamableHTTPServerTransport per request, sessionIdGenerator undefined, JSON
// responses) serving the same resource, budget >= 3x (DESIGN.md section 5), and (2) a plain Express GET
// of the same payload, reported without a budget (the cost of the MCP envelope and the in-process hop).

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { compareHttp, finish, listen } from '@portcullis/bench'
import { createMCPEndpoint, mcpResource } from '@portcullis/express/mcp'
import express from 'express'

const payload = {
  service: 'billing',
  features: Array.from({ length: 20 }, (_, index) => ({ id: `feature-${index}`, enabled: index % 3 !== 0 })),
  limits: { requestsPerMinute: 600, burst: 50 },
}
const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'resources/read',
  params: { uri: 'express://config' },
})
const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
}

// Candidate: the marked route, published by the Portcullis endpoint.
const portcullis = express()
const endpoint = createMCPEndpoint({ serverInfo: { name: 'bench', version: '1.0.0' } })
portcullis.use(endpoint)
portcullis.get(
  '/config',
  mcpResource('config', { mimeType: 'application/json' })((_request, response) => {
    response.json(payload)
  }),
)
await endpoint.attach(portcullis)

// Baseline 1: the SDK's documented stateless pattern, in JSON response mode.
const sdk = express()
sdk.use(express.json())
sdk.post('/mcp', async (request, response) => {
  const server = new McpServer({ name: 'bench', version: '1.0.0' })
  server.registerResource('config', 'express://config', { mimeType: 'application/json' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(payload) }],
  }))
  // stateless: no sessionIdGenerator (undefined, omitted for exactOptionalPropertyTypes); JSON, not SSE framing
  const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true })
  response.on('close', () => {
    void transport.close()
    void server.close()
  })
  await server.connect(transport)
  await transport.handleRequest(request, response, request.body)
})

// Baseline 2: the same payload from a plain Express GET.
const plain = express()
plain.get('/config', (_request, response) => {
  response.json(payload)
})

const [candidate, official, direct] = await Promise.all([listen(portcullis), listen(sdk), listen(plain)])
try {
  const read = { method: 'POST' as const, headers, body }
  await compareHttp({
    title: 'mcp resources/read vs official SDK stateless server',
    baseline: { name: '@modelcontextprotocol/sdk stateless', url: `${official.url}/mcp`, ...read },
    candidate: { name: '@portcullis/express mcp', url: `${candidate.url}/mcp`, ...read },
    budget: 3,
  })
  await compareHttp({
    title: 'mcp resources/read vs plain express GET of the same payload',
    baseline: { name: 'plain express GET', url: `${direct.url}/config` },
    candidate: { name: '@portcullis/express mcp', url: `${candidate.url}/mcp`, ...read },
  })
} finally {
  await Promise.all([candidate.close(), official.close(), direct.close()])
}
finish()
