// `resources/read` of one JSON resource (DESIGN.md section 5), with the same `security.middleware` installed
// in every app:
// - the Portcullis endpoint reading the marked route vs a plain Express GET of that same route and payload,
//   budget >= 0.7x (the physical limit: a read is that GET plus the JSON-RPC envelope around it);
// - vs the official 1.x SDK stateless server (a fresh McpServer and transport per request, JSON responses)
//   and vs the 2.x SDK stateless handler (`createMcpHandler`) on 2026-07-28, budget >= 2x each;
// - a read of a resource behind an API key: mechanism calls per read (must be exactly 1) and the ratio to
//   a direct GET with the same key.

import { randomBytes } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { createMcpHandler, McpServer as ModernServer } from '@modelcontextprotocol/server'
import { compareHttp, finish, listen } from '@portcullis/bench'
import { ApiKeyPepperRing, ApiKeyService, apiKey, MemoryApiKeyStore } from '@portcullis/core/api-keys'
import type { AuthenticationMechanism } from '@portcullis/core/authentication'
import { anonymous, required } from '@portcullis/core/policy'
import { createSecurity } from '@portcullis/express'
import { createMCPEndpoint } from '@portcullis/express/mcp'
import express from 'express'

const payload = {
  service: 'billing',
  features: Array.from({ length: 20 }, (_, index) => ({ id: `feature-${index}`, enabled: index % 3 !== 0 })),
  limits: { requestsPerMinute: 600, burst: 50 },
}
const text = JSON.stringify(payload)
const readOf = (uri: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } })
const legacyHeaders = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
}
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
}
const modernBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'resources/read',
  params: { uri: 'express://config', _meta: META },
})
const modernHeaders = {
  ...legacyHeaders,
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'resources/read',
  'mcp-name': 'express://config',
}

// One API-key mechanism whose calls are counted, and one key.
const keys = new ApiKeyService({
  store: new MemoryApiKeyStore(),
  peppers: new ApiKeyPepperRing({ version: 'v1', secret: randomBytes(32) }),
  prefix: 'bench',
})
const issued = await keys.issue({ ownerId: 'svc-bench' })
let mechanismCalls = 0
let protectedReads = 0
const keyMechanism = apiKey({ service: keys })
const countedKey: AuthenticationMechanism = {
  ...keyMechanism,
  authenticate(source) {
    mechanismCalls += 1
    return keyMechanism.authenticate(source)
  },
}
const security = createSecurity({ mechanisms: [countedKey] })

// Candidate and plain GET baseline: one app, one marked route, read directly or through /mcp.
const portcullis = express()
portcullis.use(security.middleware)
const endpoint = createMCPEndpoint({
  security,
  auth: anonymous(),
  serverInfo: { name: 'bench', version: '1.0.0' },
})
portcullis.use(endpoint)
const router = security.router()
router.get(
  '/config',
  { auth: anonymous(), mcpResource: 'config', mcpResourceMimeType: 'application/json' },
  (_req, res) => {
    res.json(payload)
  },
)
router.get('/keyed', { auth: required('api-key'), mcpResource: 'keyed' }, (_req, res) => {
  protectedReads += 1
  res.json(payload)
})
portcullis.use(router)
await endpoint.attach(portcullis)

// Baseline: the 1.x SDK's documented stateless pattern, in JSON response mode.
const legacySdk = express()
legacySdk.use(security.middleware)
legacySdk.use(express.json())
legacySdk.post('/mcp', async (request, response) => {
  const server = new McpServer({ name: 'bench', version: '1.0.0' })
  server.registerResource('config', 'express://config', { mimeType: 'application/json' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text }],
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

// Baseline: the 2.x SDK's stateless handler (a fresh server per request), through a minimal Node adapter.
const modern = createMcpHandler(() => {
  const server = new ModernServer({ name: 'bench', version: '1.0.0' })
  server.registerResource('config', 'express://config', { mimeType: 'application/json' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text }],
  }))
  return server
})
const modernSdk = express()
modernSdk.use(security.middleware)
modernSdk.post('/mcp', async (request, response) => {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const answer = await modern.fetch(
    new Request(`http://${request.headers.host}${request.url}`, {
      method: 'POST',
      headers: headersOf(request.headers),
      body: Buffer.concat(chunks),
    }),
  )
  response.status(answer.status)
  answer.headers.forEach((value, name) => {
    response.setHeader(name, value)
  })
  response.end(Buffer.from(await answer.arrayBuffer()))
})

function headersOf(headers: IncomingHttpHeaders): Headers {
  const result = new Headers()
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') result.set(name, value)
  }
  return result
}

const [candidate, legacyServer, modernServer] = await Promise.all([
  listen(portcullis),
  listen(legacySdk),
  listen(modernSdk),
])
try {
  const read = { method: 'POST' as const, headers: legacyHeaders, body: readOf('express://config') }
  await compareHttp({
    id: 'mcp-read-vs-get',
    title: 'mcp resources/read vs plain express GET of the same route and payload',
    baseline: { name: 'GET /config', url: `${candidate.url}/config` },
    candidate: { name: '@portcullis/express mcp', url: `${candidate.url}/mcp`, ...read },
    budget: 0.7,
  })
  await compareHttp({
    id: 'express-mcp-read-vs-sdk-1x',
    title: 'Express MCP resources/read vs the 1.x SDK stateless server reading the same resource',
    budget: 2,
    baseline: { name: '@modelcontextprotocol/sdk stateless', url: `${legacyServer.url}/mcp`, ...read },
    candidate: { name: '@portcullis/express mcp', url: `${candidate.url}/mcp`, ...read },
  })
  const modernRead = { method: 'POST' as const, headers: modernHeaders, body: modernBody }
  await compareHttp({
    id: 'express-mcp-read-vs-sdk-2x',
    title:
      'Express MCP resources/read (2026-07-28) vs the 2.x SDK stateless handler reading the same resource',
    budget: 2,
    baseline: {
      name: '@modelcontextprotocol/server createMcpHandler',
      url: `${modernServer.url}/mcp`,
      ...modernRead,
    },
    candidate: { name: '@portcullis/express mcp', url: `${candidate.url}/mcp`, ...modernRead },
  })
  const keyed = { 'x-api-key': issued.value }
  mechanismCalls = 0
  protectedReads = 0
  await compareHttp({
    title: 'mcp resources/read of an API-key route vs a direct GET with the key (report only)',
    baseline: { name: 'GET /keyed', url: `${candidate.url}/keyed`, headers: keyed },
    candidate: {
      name: '@portcullis/express mcp',
      url: `${candidate.url}/mcp`,
      method: 'POST',
      headers: { ...legacyHeaders, ...keyed },
      body: readOf('express://keyed'),
    },
  })
  // every request of that comparison, GET or read, reached the handler once: one call each is the goal
  await new Promise((resolve) => setTimeout(resolve, 200)) // requests cut off by the end of the run finish
  const perRequest = mechanismCalls / protectedReads
  const exact = Math.abs(perRequest - 1) < 0.001
  console.log(
    `api-key route: ${mechanismCalls} mechanism calls for ${protectedReads} requests (direct GETs and reads) -> ${perRequest.toFixed(3)} per request${exact ? '  PASS (must be 1)' : '  FAIL (must be 1)'}`,
  )
  if (!exact) process.exitCode = 1
} finally {
  await Promise.all([candidate.close(), legacyServer.close(), modernServer.close()])
  await modern.close()
}
finish()
