// The MCP JSON-RPC dispatcher on raw bodies, parsed messages, batches and transport headers: it always
// answers (never rejects), with a well-formed JSON-RPC envelope, a size linear in the request, and for
// initialize-era messages exactly the envelope errors the JSON-RPC 2.0 / MCP rules call for.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { MCPResourceResponse } from '../../src/mcp/contents.js'
import { MCPDispatcher, type MCPDispatchOptions, type MCPDispatchResult } from '../../src/mcp/dispatcher.js'
import type { JsonRpcResponse } from '../../src/mcp/jsonrpc.js'
import { MCPResourceRegistry } from '../../src/mcp/registry.js'
import { anyText, nearValid, RUNS } from './support.js'

type Target = (params: Readonly<Record<string, string>>) => MCPResourceResponse
interface Caller {
  readonly user: string
}

const META_VERSION = 'io.modelcontextprotocol/protocolVersion'
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
const LEGACY_METHODS = [
  'initialize',
  'ping',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
]
/** Fixed answers (lists, the OpenAPI document, resource bodies) are at most this large. */
const FIXED_OUTPUT = 16 * 1024

const json = (status: number, value: unknown): MCPResourceResponse => ({
  status,
  contentType: 'application/json',
  body: new TextEncoder().encode(JSON.stringify(value)),
})

function fixture(): MCPDispatcher<Target, Caller> {
  const registry = new MCPResourceRegistry<Target>({ scheme: 'fw' })
  registry.register({
    name: 'config',
    mimeType: 'application/json',
    target: () => json(200, { debug: true }),
  })
  registry.register({
    name: 'report',
    target: () => ({ status: 200, contentType: 'application/pdf', body: Uint8Array.from([0, 1, 2]) }),
  })
  registry.register({ name: 'flaky', target: () => json(503, { error: 'upstream timeout' }) })
  registry.register({
    name: 'boom',
    target: () => {
      throw new TypeError('secret stack frame')
    },
  })
  registry.register({ name: 'wf', template: 'app://w/{wid}/f/{fid}', target: (params) => json(200, params) })
  return new MCPDispatcher<Target, Caller>({
    registry,
    serverInfo: { name: 'fuzz', version: '1.0.0' },
    openapi: () => ({ openapi: '3.1.0', info: { title: 'fuzz', version: '1.0.0' } }),
    reader: async (resource, params) => resource.target(params),
    pageSize: 2,
  })
}

const dispatcher = fixture()

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const uriArb = fc.oneof(
  fc.constantFrom(
    'fw://openapi',
    'fw://config',
    'FW://config',
    'fw://report',
    'fw://flaky',
    'fw://boom',
    'app://w/1/f/2',
    'app://w/%zz/f/1',
    '',
  ),
  nearValid(fc.constantFrom('fw://config', 'app://w/a%20b/f/1'), ['/', '%', '%2F', '..', 'fw://', ':']),
  anyText(30),
  fc.constant(`fw://${'x'.repeat(9000)}`),
)
const metaArb = fc.record(
  {
    [META_VERSION]: fc.oneof(
      fc.constantFrom('2026-07-28', '2025-11-25', '2099-01-01'),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    [META_CAPABILITIES]: fc.oneof(fc.constant({}), fc.jsonValue({ maxDepth: 1 })),
    'io.modelcontextprotocol/clientInfo': fc.oneof(
      fc.constant({ name: 'c', version: '1' }),
      fc.jsonValue({ maxDepth: 1 }),
    ),
    'io.modelcontextprotocol/logLevel': fc.oneof(
      fc.constantFrom('info', 'loud'),
      fc.jsonValue({ maxDepth: 1 }),
    ),
  },
  { requiredKeys: [] },
)
const paramsArb = fc.oneof(
  fc.record(
    {
      uri: uriArb,
      cursor: fc.oneof(
        fc.constantFrom('bzoy', 'bzoxMDAw', 'o:2'),
        anyText(12),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      protocolVersion: fc.oneof(fc.constantFrom('2025-03-26', '2025-11-25', '2026-07-28'), anyText(12)),
      _meta: fc.oneof(metaArb, fc.jsonValue({ maxDepth: 2 })),
      capabilities: fc.constant({}),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue({ maxDepth: 3 }),
)
const methodArb = fc.oneof(
  fc.constantFrom(
    ...LEGACY_METHODS,
    'server/discover',
    'notifications/initialized',
    'tools/list',
    '',
    'resources/READ',
    '__proto__',
    'constructor',
  ),
  anyText(16),
  fc.jsonValue({ maxDepth: 1 }),
)
const idArb = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 10 }),
  fc.constantFrom(null, 2 ** 53, -0, 1.5, true, Number.MAX_SAFE_INTEGER),
  fc.jsonValue({ maxDepth: 1 }),
)
/** Anything in every member. */
const chaoticMessage = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue({ maxDepth: 1 })),
    id: idArb,
    method: methodArb,
    params: paramsArb,
    result: fc.jsonValue({ maxDepth: 1 }),
    error: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
)
/** A well-shaped request of a method this server knows (either era's), with its parameters. */
const wellShaped = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.string({ maxLength: 8 })),
  method: fc.constantFrom(...LEGACY_METHODS, 'server/discover'),
  params: fc.record(
    { uri: uriArb, cursor: fc.constantFrom('bzoy', 'bzoz', 'o:2', 'AAAA') },
    { requiredKeys: [] },
  ),
})
type Mutation =
  | 'none'
  | 'drop-id'
  | 'drop-method'
  | 'drop-jsonrpc'
  | 'id'
  | 'method'
  | 'params'
  | 'jsonrpc'
  | 'response'
/** A well-shaped request with at most one member dropped or replaced by arbitrary JSON. */
const nearValidMessage = fc
  .tuple(
    wellShaped,
    fc.constantFrom<Mutation>(
      'none',
      'none',
      'drop-id',
      'drop-method',
      'drop-jsonrpc',
      'id',
      'method',
      'params',
      'jsonrpc',
      'response',
    ),
    fc.jsonValue({ maxDepth: 2 }),
  )
  .map(([message, mutation, junk]): Record<string, unknown> => {
    const { id, method, jsonrpc, ...rest } = message
    switch (mutation) {
      case 'none':
        return message
      case 'drop-id':
        return { jsonrpc, method, ...rest }
      case 'drop-method':
        return { jsonrpc, id, ...rest }
      case 'drop-jsonrpc':
        return { id, method, ...rest }
      case 'response':
        return { jsonrpc, id, result: junk }
      default:
        return { ...message, [mutation]: junk }
    }
  })
const messageArb = fc.oneof(
  { arbitrary: nearValidMessage, weight: 4 },
  { arbitrary: chaoticMessage, weight: 1 },
)

const headersArb = fc.oneof(
  { arbitrary: fc.constant({}), weight: 3 },
  {
    arbitrary: fc.record(
      {
        protocolVersion: fc.oneof(
          fc.constantFrom('2025-11-25', '2025-06-18', '2025-03-26', '2026-07-28', '1999-01-01'),
          anyText(12),
        ),
        mcpMethod: fc.oneof(fc.constantFrom(...LEGACY_METHODS, 'server/discover'), anyText(12)),
        mcpName: fc.oneof(uriArb, fc.constantFrom('=?base64?!!?=', '=?base64?/w==?=')),
      },
      { requiredKeys: [] },
    ),
    weight: 1,
  },
)

/**
 * A 2026-07-28 request with a valid envelope and matching headers (the name header plain or base64), then
 * one change to the body or a header.
 */
const modernExchange = fc
  .tuple(
    wellShaped,
    fc.boolean(),
    fc.constantFrom(
      'none',
      'none',
      'version-header',
      'method-header',
      'name-header',
      'drop-name',
      'meta',
      'capabilities',
    ),
    fc.oneof(anyText(12), fc.jsonValue({ maxDepth: 1 })),
  )
  .map(([request, base64, change, junk]) => {
    const meta: Record<string, unknown> = { [META_VERSION]: '2026-07-28', [META_CAPABILITIES]: {} }
    const uri = request.params.uri
    const headers: Record<string, string> = { protocolVersion: '2026-07-28', mcpMethod: request.method }
    if (uri !== undefined)
      headers.mcpName = base64 ? `=?base64?${Buffer.from(uri).toString('base64')}?=` : uri
    const text = typeof junk === 'string' ? junk : JSON.stringify(junk)
    if (change === 'version-header') headers.protocolVersion = text
    if (change === 'method-header') headers.mcpMethod = text
    if (change === 'name-header') headers.mcpName = text
    if (change === 'drop-name') delete headers.mcpName
    if (change === 'meta') meta[META_VERSION] = junk
    if (change === 'capabilities') meta[META_CAPABILITIES] = junk
    return { message: { ...request, params: { ...request.params, _meta: meta } }, headers }
  })

type Headers = Omit<MCPDispatchOptions<Caller>, 'context'>

function options(headers: Headers): MCPDispatchOptions<Caller> {
  return { context: { user: 'alice' }, ...headers }
}

const headerSize = (headers: Headers) => JSON.stringify(headers).length

/** What holds for every answer: a settled promise, a known status, well-formed bounded envelopes. */
async function wellFormed(
  run: () => Promise<MCPDispatchResult>,
  inputSize: number,
): Promise<MCPDispatchResult> {
  const result = await run() // a rejection fails the property with the error itself
  expect([200, 202, 400, 404]).toContain(result.status)
  if (result.status === 202) return result
  const responses = Array.isArray(result.body) ? result.body : [result.body]
  expect(responses.length).toBeGreaterThan(0)
  for (const response of responses) {
    expect(response.jsonrpc).toBe('2.0')
    const id: unknown = response.id
    expect(
      id === null || typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)),
    ).toBe(true)
    expect('result' in response !== 'error' in response).toBe(true)
    if ('error' in response) {
      expect(Number.isInteger(response.error.code)).toBe(true)
      expect(typeof response.error.message).toBe('string')
      expect(JSON.stringify(response.error)).not.toContain('secret stack frame')
    }
  }
  // linear in the request: escaping can turn one character into six, nothing grows faster
  expect(JSON.stringify(result.body).length).toBeLessThanOrEqual(
    6 * inputSize + FIXED_OUTPUT * responses.length,
  )
  return result
}

/** The initialize-era envelope rules (JSON-RPC 2.0 as tightened by MCP) for one message without `_meta`. */
function legacyOracle(message: unknown): { status: number; code?: number; id?: unknown } {
  if (!isPlainObject(message)) return { status: 400, code: -32600, id: null }
  const hasId = Object.hasOwn(message, 'id')
  const id = message.id
  const validId = typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id))
  if (hasId && !validId) return { status: 400, code: -32600, id: null }
  const echo = hasId ? id : null
  if (message.jsonrpc !== '2.0') return { status: 400, code: -32600, id: echo }
  const method = message.method
  if (
    method === undefined &&
    hasId &&
    (Object.hasOwn(message, 'result') || Object.hasOwn(message, 'error'))
  ) {
    return { status: 202 }
  }
  if (typeof method !== 'string' || method === '') return { status: 400, code: -32600, id: echo }
  if (!hasId) return { status: 202 }
  if (!LEGACY_METHODS.includes(method)) return { status: 200, code: -32601, id }
  if (message.params !== undefined && !isPlainObject(message.params)) return { status: 200, code: -32602, id }
  return { status: 200, id }
}

const claimsEnvelope = (message: unknown): boolean =>
  isPlainObject(message) &&
  isPlainObject(message.params) &&
  isPlainObject(message.params._meta) &&
  Object.hasOwn(message.params._meta, META_VERSION)

describe('MCPDispatcher under fuzzing', () => {
  it('answers arbitrary raw bodies (text and bytes, invalid UTF-8 included) without rejecting', async () => {
    const body = fc.oneof(
      anyText(200),
      fc.uint8Array({ maxLength: 200 }),
      nearValid(
        messageArb.map((message) => JSON.stringify(message)),
        ['{', '}', '[', ']', ',', '"', '\\u0000', '"id":1,', '"method":"ping",'],
      ),
    )
    await fc.assert(
      fc.asyncProperty(body, headersArb, async (raw, headers) => {
        const size = (typeof raw === 'string' ? raw.length : raw.byteLength) + headerSize(headers)
        await wellFormed(() => dispatcher.handleText(raw, options(headers)), size)
      }),
      { numRuns: RUNS.structured },
    )
  })

  it('answers structured near-valid messages of both eras with well-formed, bounded envelopes', async () => {
    const exchange = fc.oneof(
      fc.record({ message: fc.oneof(messageArb, fc.jsonValue({ maxDepth: 3 })), headers: headersArb }),
      modernExchange,
    )
    await fc.assert(
      fc.asyncProperty(exchange, async ({ message, headers }) => {
        const size = JSON.stringify(message).length + headerSize(headers)
        const result = await wellFormed(() => dispatcher.handle(message, options(headers)), size)
        // an unknown resource is answered with its URI only, never with more
        if (result.status !== 202 && !Array.isArray(result.body) && 'error' in result.body) {
          const data = result.body.error.data as Record<string, unknown> | undefined
          if (result.body.error.message === 'Resource not found')
            expect(Object.keys(data ?? {})).toEqual(['uri'])
        }
      }),
      { numRuns: RUNS.structured },
    )
  })

  it('applies the JSON-RPC envelope rules exactly to initialize-era messages', async () => {
    const version = fc.constantFrom(undefined, '2025-11-25', '2025-06-18', '2025-03-26')
    await fc.assert(
      fc.asyncProperty(messageArb, version, async (message, protocolVersion) => {
        fc.pre(!claimsEnvelope(message))
        const headers = protocolVersion === undefined ? {} : { protocolVersion }
        const result = await wellFormed(
          () => dispatcher.handle(message, options(headers)),
          JSON.stringify(message).length + 64,
        )
        const expected = legacyOracle(message)
        expect(result.status).toBe(expected.status)
        if (result.status === 202) return
        const body = result.body as JsonRpcResponse // one message in, one response out
        expect(body.id).toEqual(expected.id)
        if (expected.code !== undefined) expect('error' in body && body.error.code).toBe(expected.code)
        else if ('error' in body) expect([-32602, -32603]).toContain(body.error.code)
      }),
      { numRuns: RUNS.structured },
    )
  })

  it('bounds batches: one answer per request at most, refused past the limit or outside 2025-03-26', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(messageArb, { maxLength: 20 }),
        fc.constantFrom(undefined, '2025-03-26', '2025-11-25'),
        async (batch, protocolVersion) => {
          const headers = protocolVersion === undefined ? {} : { protocolVersion }
          const result = await wellFormed(
            () => dispatcher.handle(batch, options(headers)),
            JSON.stringify(batch).length + 64,
          )
          if (protocolVersion !== '2025-03-26' && protocolVersion !== undefined)
            expect(result.status).toBe(400)
          if (batch.length === 0 || batch.length > 16) expect(result.status).toBe(400)
          if (result.status === 200 && Array.isArray(result.body)) {
            expect(result.body.length).toBeLessThanOrEqual(batch.length)
          }
        },
      ),
      { numRuns: RUNS.io },
    )
  })

  it('answers a deeply nested megabyte body without exhausting the stack', async () => {
    const deep = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${'['.repeat(500_000)}${']'.repeat(500_000)}}}`
    const result = await dispatcher.handleText(deep, options({}))
    expect(result.status).toBe(200)
  })
})
