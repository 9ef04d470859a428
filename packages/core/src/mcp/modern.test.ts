import { describe, expect, it } from 'vitest'
import type { MCPResourceResponse } from './contents.js'
import { MCPDispatcher, type MCPDispatcherOptions, type MCPDispatchOptions } from './dispatcher.js'
import { decodeHeaderValue } from './modern.js'
import { MCPResourceRegistry } from './registry.js'

// The stateless 2026-07-28 revision in the framework-neutral dispatcher: era chosen per message, the
// header/body checks in the official SDK's order, result decoration, caching hints and listing modes.

type Target = () => MCPResourceResponse
const text = (body: string): MCPResourceResponse => ({
  status: 200,
  contentType: 'text/plain',
  body: new TextEncoder().encode(body),
})

function dispatcher(options: Partial<MCPDispatcherOptions<Target, string>> = {}) {
  const registry = new MCPResourceRegistry<Target>({ scheme: 'fw' })
  registry.register({ name: 'public', ttlMs: 30_000, target: () => text('for everyone') })
  registry.register({ name: 'private', target: () => text('for you') })
  registry.register({ name: 'admin', target: () => text('for admins') })
  registry.register({ name: 'item', template: 'item://{id}', target: () => text('an item') })
  return new MCPDispatcher<Target, string>({
    registry,
    serverInfo: { name: 'modern', version: '9.9.9' },
    openapi: () => ({ openapi: '3.1.0' }),
    reader: async (resource) => resource.target(),
    cacheScope: (resource) => (resource.name === 'public' ? 'public' : 'private'),
    ...options,
  })
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
}
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'modern', version: '9.9.9' } }

function send(
  target: MCPDispatcher<Target, string>,
  method: string,
  params: Record<string, unknown> = {},
  headers: Partial<MCPDispatchOptions<string>> = {},
) {
  const name = typeof params.uri === 'string' ? { mcpName: params.uri } : {}
  return target.handle(
    { jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: META } },
    { context: 'alice', protocolVersion: '2026-07-28', mcpMethod: method, ...name, ...headers },
  )
}

const bodyOf = (outcome: Awaited<ReturnType<typeof send>>) => {
  if (outcome.status === 202 || Array.isArray(outcome.body)) throw new Error('expected one response')
  return outcome.body as { result?: Record<string, unknown>; error?: { code: number; data?: unknown } }
}

describe('2026-07-28 results', () => {
  it('decorates a read with resultType, the resource hint and the server identity', async () => {
    const outcome = await send(dispatcher(), 'resources/read', { uri: 'fw://public' })
    expect(outcome).toEqual({
      status: 200,
      body: {
        jsonrpc: '2.0',
        id: 7,
        result: {
          contents: [{ uri: 'fw://public', mimeType: 'text/plain', text: 'for everyone' }],
          resultType: 'complete',
          ttlMs: 30_000,
          cacheScope: 'public',
          _meta: SERVER_INFO,
        },
      },
    })
    expect(bodyOf(await send(dispatcher(), 'resources/read', { uri: 'item://1' })).result).toMatchObject({
      ttlMs: 0,
      cacheScope: 'private',
    })
  })

  it('gives shared answers (discover, openapi, lists) the shared scope, unless lists are tailored', async () => {
    const open = dispatcher({ sharedCacheScope: 'public' })
    for (const [method, params] of [
      ['server/discover', {}],
      ['resources/list', {}],
      ['resources/templates/list', {}],
      ['resources/read', { uri: 'fw://openapi' }],
    ] as const) {
      expect(bodyOf(await send(open, method, params)).result).toMatchObject({
        ttlMs: 0,
        cacheScope: 'public',
      })
    }
    const tailored = dispatcher({ sharedCacheScope: 'public', visible: () => true })
    expect(bodyOf(await send(tailored, 'resources/list')).result).toMatchObject({ cacheScope: 'private' })
    // a resource hidden from some callers never goes to a shared cache
    expect(bodyOf(await send(tailored, 'resources/read', { uri: 'fw://public' })).result).toMatchObject({
      cacheScope: 'private',
    })
    expect(bodyOf(await send(dispatcher(), 'server/discover')).result).toMatchObject({
      cacheScope: 'private',
    })
  })

  it('keeps the initialize era free of 2026-07-28 fields', async () => {
    const outcome = await dispatcher().handle(
      { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'fw://public' } },
      { context: 'alice', protocolVersion: '2025-11-25' },
    )
    expect(bodyOf(outcome).result).toEqual({
      contents: [{ uri: 'fw://public', mimeType: 'text/plain', text: 'for everyone' }],
    })
  })
})

describe('2026-07-28 checks before dispatch', () => {
  it.each([
    [
      'the envelope first (-32602)',
      { _meta: { 'io.modelcontextprotocol/protocolVersion': 2026 } },
      {},
      400,
      -32602,
    ],
    ['a disagreeing version header', {}, { protocolVersion: '2025-11-25' }, 400, -32020],
    ['a disagreeing method header', {}, { mcpMethod: 'resources/list' }, 400, -32020],
    ['a missing name header', {}, { mcpName: undefined }, 400, -32020],
  ])('answers %s', async (_case, params, headers, status, code) => {
    const target = dispatcher()
    const merged = { uri: 'fw://public', ...params }
    const outcome = await target.handle(
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'resources/read',
        params: { _meta: META, ...merged },
      },
      {
        context: 'alice',
        protocolVersion: '2026-07-28',
        mcpMethod: 'resources/read',
        mcpName: 'fw://public',
        ...headers,
      } as MCPDispatchOptions<string>,
    )
    expect(outcome.status).toBe(status)
    expect(bodyOf(outcome).error?.code).toBe(code)
  })

  it('checks the supported revision after the header cross-checks, and the method registry last', async () => {
    const meta = { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }
    const unsupported = await dispatcher().handle(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { _meta: meta } },
      { context: 'alice', protocolVersion: '2099-01-01', mcpMethod: 'initialize' },
    )
    expect(unsupported.status).toBe(400)
    expect(bodyOf(unsupported).error).toMatchObject({
      code: -32022,
      data: { supported: ['2026-07-28'], requested: '2099-01-01' },
    })
    const unknown = await send(dispatcher(), 'tools/list')
    expect(unknown.status).toBe(404)
    expect(bodyOf(unknown).error?.code).toBe(-32601)
  })

  it('treats an initialize whose envelope is not a valid modern claim as the legacy handshake', async () => {
    const outcome = await dispatcher().handle(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-06-18' },
        },
      },
      { context: 'alice' },
    )
    expect(bodyOf(outcome).result).toMatchObject({ protocolVersion: '2025-06-18' })
  })

  it('decodes Mcp-Name sentinels only when canonical base64 of UTF-8', () => {
    expect(decodeHeaderValue('fw://plain')).toBe('fw://plain')
    expect(decodeHeaderValue(`=?base64?${Buffer.from('fw://zoë').toString('base64')}?=`)).toBe('fw://zoë')
    expect(decodeHeaderValue('=?base64?Zm9v?=')).toBe('foo')
    expect(decodeHeaderValue('=?base64?Zm9?=')).toBeUndefined()
    expect(decodeHeaderValue(`=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`)).toBeUndefined()
  })
})

describe("listing: 'readable'", () => {
  const readable = (resource: { name: string }, caller: string) =>
    resource.name === 'admin'
      ? Promise.resolve(caller === 'root')
      : resource.name === 'item'
        ? Promise.reject(new Error('cannot decide'))
        : true

  it('lists only what the caller could read; a failing decision lists nothing, reads are untouched', async () => {
    const target = dispatcher({ listing: 'readable', readable })
    const names = async (caller: string, method: string, key: string) => {
      const outcome = await target.handle(
        { jsonrpc: '2.0', id: 1, method },
        { context: caller, protocolVersion: '2025-11-25' },
      )
      return ((bodyOf(outcome).result?.[key] ?? []) as { name: string }[]).map((entry) => entry.name)
    }
    expect(await names('alice', 'resources/list', 'resources')).toEqual(['openapi', 'public', 'private'])
    expect(await names('root', 'resources/list', 'resources')).toEqual([
      'openapi',
      'public',
      'private',
      'admin',
    ])
    expect(await names('root', 'resources/templates/list', 'resourceTemplates')).toEqual([])
    const read = await target.handle(
      { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'fw://admin' } },
      { context: 'alice' },
    )
    expect(bodyOf(read).result).toBeDefined()
  })

  it('refuses readable listing without a decision function, and unknown modes', () => {
    expect(() => dispatcher({ listing: 'readable' })).toThrow(
      expect.objectContaining({ code: 'mcp.option_invalid' }),
    )
    expect(() => dispatcher({ listing: 'some' as never })).toThrow(
      expect.objectContaining({ code: 'mcp.option_invalid' }),
    )
    expect(() => dispatcher({ sharedCacheScope: 'shared' as never })).toThrow(
      expect.objectContaining({ code: 'mcp.option_invalid' }),
    )
  })
})
