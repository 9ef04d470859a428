import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MCPResourceResponse } from './contents.js'
import { MCPDispatcher, type MCPDispatcherOptions, type MCPDispatchResult } from './dispatcher.js'
import { MCPResourceRegistry } from './registry.js'
import { loadSkillCatalog, type SkillCatalog } from './skills.js'

type Target = (params: Readonly<Record<string, string>>, caller: string) => MCPResourceResponse
interface Caller {
  readonly user: string
}

const json = (status: number, value: unknown): MCPResourceResponse => ({
  status,
  contentType: 'application/json; charset=utf-8',
  body: new TextEncoder().encode(JSON.stringify(value)),
})

function fixture(options: Partial<MCPDispatcherOptions<Target, Caller>> & { skills?: SkillCatalog } = {}) {
  const registry = new MCPResourceRegistry<Target>({
    scheme: 'fw',
    skillsEnabled: options.skills !== undefined,
  })
  registry.register({
    name: 'config',
    mimeType: 'application/json',
    target: () => json(200, { debug: true }),
  })
  registry.register({
    name: 'report',
    mimeType: 'application/pdf',
    target: () => ({ status: 200, contentType: 'application/pdf', body: Uint8Array.from([0, 1, 0x72]) }),
  })
  registry.register({ name: 'whoami', target: (_params, caller) => json(200, { caller }) })
  registry.register({ name: 'flaky', target: () => json(503, { error: 'upstream timeout' }) })
  registry.register({
    name: 'boom',
    target: () => {
      throw new Error('at secret stack frame')
    },
  })
  registry.register({ name: 'admin', target: () => json(200, { admin: true }) })
  registry.register({ name: 'wf', template: 'app://w/{wid}/f/{fid}', target: (params) => json(200, params) })
  registry.register({
    name: 'other',
    template: 'app://w/{x}/f/{y}',
    target: () => json(200, { other: true }),
  })
  const dispatcher = new MCPDispatcher<Target, Caller>({
    registry,
    serverInfo: { name: 'fixture', version: '1.2.3' },
    openapi: () => ({ openapi: '3.1.0', info: { title: 'fixture', version: '1.2.3' } }),
    reader: async (resource, params, caller) => resource.target(params, caller.user),
    visible: (resource, caller) => resource.name !== 'admin' || caller.user === 'root',
    ...options,
  })
  return dispatcher
}

const call = (
  dispatcher: MCPDispatcher<Target, Caller>,
  message: unknown,
  protocolVersion?: string,
  user = 'alice',
): Promise<MCPDispatchResult> =>
  dispatcher.handle(message, {
    context: { user },
    ...(protocolVersion === undefined ? {} : { protocolVersion }),
  })

const request = (method: string, params?: unknown, id: string | number = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
})

async function result(
  dispatcher: MCPDispatcher<Target, Caller>,
  method: string,
  params?: unknown,
  user?: string,
) {
  const outcome = await call(dispatcher, request(method, params), undefined, user)
  if (outcome.status === 202 || Array.isArray(outcome.body)) throw new Error('expected one response')
  return outcome.body as {
    result?: Record<string, unknown>
    error?: { code: number; message: string; data?: unknown }
  }
}

type Reply = Awaited<ReturnType<typeof result>>
const items = (reply: Reply, key: string) => (reply.result?.[key] ?? []) as Record<string, unknown>[]
const names = (reply: Reply) => items(reply, 'resources').map((entry) => entry.name)
const firstText = (reply: Reply) => items(reply, 'contents')[0]?.text

describe('MCPDispatcher handshake', () => {
  const dispatcher = fixture()

  it.each([
    ['2025-11-25', '2025-11-25'],
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'],
    ['1999-01-01', '2025-11-25'],
    ['2026-07-28', '2025-11-25'],
    [undefined, '2025-11-25'],
  ])('initialize with %s answers %s', async (requested, expected) => {
    const reply = await result(dispatcher, 'initialize', { protocolVersion: requested, capabilities: {} })
    expect(reply.result).toEqual({
      protocolVersion: expected,
      capabilities: { resources: { subscribe: false, listChanged: false }, completions: {} },
      serverInfo: { name: 'fixture', version: '1.2.3' },
    })
  })

  it('returns instructions only when configured', async () => {
    const reply = await result(fixture({ instructions: 'Read fw://openapi first.' }), 'initialize', {})
    expect(reply.result?.instructions).toBe('Read fw://openapi first.')
  })

  it('acknowledges notifications and client responses without a body and without executing', async () => {
    let reads = 0
    const counting = fixture({
      reader: async () => {
        reads += 1
        return json(200, {})
      },
    })
    for (const message of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/whatever', params: [] },
      { jsonrpc: '2.0', method: 'resources/read', params: { uri: 'fw://config' } },
      { jsonrpc: '2.0', id: 7, result: {} },
      { jsonrpc: '2.0', id: 8, error: { code: 1, message: 'x' } },
    ]) {
      expect(await call(counting, message)).toEqual({ status: 202 })
    }
    expect(reads).toBe(0)
  })

  it('answers ping with an empty result and echoes the id verbatim', async () => {
    expect(await call(dispatcher, request('ping', undefined, 'p1'))).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: 'p1', result: {} },
    })
  })
})

describe('MCPDispatcher listing', () => {
  it('lists openapi first, then handler resources with their mime types, never templates', async () => {
    const reply = await result(fixture(), 'resources/list')
    expect(reply.result).toEqual({
      resources: [
        {
          uri: 'fw://openapi',
          name: 'openapi',
          description: expect.any(String),
          mimeType: 'application/json',
        },
        { uri: 'fw://config', name: 'config', mimeType: 'application/json' },
        { uri: 'fw://report', name: 'report', mimeType: 'application/pdf' },
        { uri: 'fw://whoami', name: 'whoami' },
        { uri: 'fw://flaky', name: 'flaky' },
        { uri: 'fw://boom', name: 'boom' },
      ],
    })
    expect(await result(fixture(), 'resources/list', {})).toEqual(reply)
  })

  it('pages with an opaque cursor until the last page', async () => {
    const dispatcher = fixture({ pageSize: 2 })
    const seen: string[] = []
    let cursor: unknown
    let pages = 0
    do {
      const reply = await result(dispatcher, 'resources/list', cursor === undefined ? {} : { cursor })
      const page = reply.result as { resources: { uri: string }[]; nextCursor?: string }
      seen.push(...page.resources.map((entry) => entry.uri))
      cursor = page.nextCursor
      pages += 1
    } while (cursor !== undefined)
    expect(pages).toBe(3)
    expect(seen).toEqual([
      'fw://openapi',
      'fw://config',
      'fw://report',
      'fw://whoami',
      'fw://flaky',
      'fw://boom',
    ])
  })

  it.each([
    '!!!',
    42,
    null,
    '',
    Buffer.from('o:-1').toString('base64url'),
    Buffer.from('o:999').toString('base64url'),
    Buffer.from('o:01').toString('base64url'),
    `${Buffer.from('o:2').toString('base64url')}=`,
  ])('refuses the cursor %j with -32602', async (cursor) => {
    const reply = await result(fixture({ pageSize: 2 }), 'resources/list', { cursor })
    expect(reply.error?.code).toBe(-32602)
  })

  it('lists templates in registration order, paged separately', async () => {
    const reply = await result(fixture(), 'resources/templates/list')
    expect(reply.result).toEqual({
      resourceTemplates: [
        { uriTemplate: 'app://w/{wid}/f/{fid}', name: 'wf' },
        { uriTemplate: 'app://w/{x}/f/{y}', name: 'other' },
      ],
    })
  })

  it('hides resources the caller may not see, from lists and from reads alike', async () => {
    const root = await result(fixture(), 'resources/list', {}, 'root')
    expect(names(root)).toContain('admin')
    const alice = await result(fixture(), 'resources/list', {}, 'alice')
    expect(names(alice)).not.toContain('admin')
    const read = await result(fixture(), 'resources/read', { uri: 'fw://admin' }, 'alice')
    expect(read.error).toEqual({ code: -32602, message: 'Resource not found', data: { uri: 'fw://admin' } })
  })
})

describe('MCPDispatcher reading', () => {
  const dispatcher = fixture()

  it('reads the OpenAPI document as JSON text', async () => {
    const reply = await result(dispatcher, 'resources/read', { uri: 'fw://openapi' })
    const contents = reply.result?.contents as { uri: string; mimeType: string; text: string }[]
    expect(contents).toHaveLength(1)
    expect(contents[0]).toMatchObject({ uri: 'fw://openapi', mimeType: 'application/json' })
    expect(JSON.parse(contents[0]?.text ?? '').openapi).toBe('3.1.0')
  })

  it('reads JSON as text, binary as blob, and passes the caller context', async () => {
    expect((await result(dispatcher, 'resources/read', { uri: 'fw://config' })).result).toEqual({
      contents: [{ uri: 'fw://config', mimeType: 'application/json', text: '{"debug":true}' }],
    })
    expect((await result(dispatcher, 'resources/read', { uri: 'fw://report' })).result).toEqual({
      contents: [{ uri: 'fw://report', mimeType: 'application/pdf', blob: 'AAFy' }],
    })
    const whoami = await result(dispatcher, 'resources/read', { uri: 'fw://whoami' }, 'bob')
    expect(firstText(whoami)).toBe('{"caller":"bob"}')
  })

  it('serves templates by the first registered match with decoded variables and the request URI', async () => {
    const reply = await result(dispatcher, 'resources/read', { uri: 'app://w/a%20b/f/99' })
    expect(reply.result).toEqual({
      contents: [
        { uri: 'app://w/a%20b/f/99', mimeType: 'application/json', text: '{"wid":"a b","fid":"99"}' },
      ],
    })
  })

  it.each([
    'fw://nope',
    'app://w//f/1',
    'app://w/1/2/f/3',
    'app://w/1/f/2/',
    'apx://w/1/f/2',
    'app://w/%zz/f/1',
    'skill://x/SKILL.md',
  ])('answers %s with -32602 Resource not found and data exactly { uri }', async (uri) => {
    const reply = await result(dispatcher, 'resources/read', { uri })
    expect(reply).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'Resource not found', data: { uri } },
    })
  })

  it('maps a failing handler to -32603 keeping the status only in data.statusCode', async () => {
    expect((await result(dispatcher, 'resources/read', { uri: 'fw://flaky' })).error).toEqual({
      code: -32603,
      message: 'Resource read failed',
      data: { statusCode: 503, content: { error: 'upstream timeout' } },
    })
  })

  it('maps a throwing reader to -32603 with statusCode 500 and no stack or message', async () => {
    const reply = await result(dispatcher, 'resources/read', { uri: 'fw://boom' })
    expect(reply.error).toMatchObject({
      code: -32603,
      message: 'Resource read failed',
      data: { statusCode: 500 },
    })
    expect(JSON.stringify(reply)).not.toContain('secret stack frame')
  })

  it('maps a failing OpenAPI provider to -32603 as well', async () => {
    const broken = fixture({
      openapi: () => {
        throw new Error('db password in here')
      },
    })
    const reply = await result(broken, 'resources/read', { uri: 'fw://openapi' })
    expect(reply.error).toMatchObject({ code: -32603, data: { statusCode: 500 } })
    expect(JSON.stringify(reply)).not.toContain('password')
  })

  it('fails a blob over the cap with -32603 and statusCode 413', async () => {
    const reply = await result(fixture({ maxBlobBytes: 2 }), 'resources/read', { uri: 'fw://report' })
    expect(reply.error).toMatchObject({
      code: -32603,
      message: 'Resource read failed',
      data: { statusCode: 413, content: { code: 'mcp.blob_too_large' } },
    })
  })

  it.each([{}, { uri: '' }, { uri: 123 }, { uri: 'x'.repeat(9000) }])(
    'refuses params %j with -32602',
    async (params) => {
      const reply = await result(dispatcher, 'resources/read', params)
      expect(reply.error?.code).toBe(-32602)
      expect(reply.error?.data).toBeUndefined()
    },
  )

  it('serves concurrent reads for different callers without mixing contexts', async () => {
    const users = Array.from({ length: 40 }, (_, index) => `user-${index}`)
    const replies = await Promise.all(
      users.map((user) => result(dispatcher, 'resources/read', { uri: 'fw://whoami' }, user)),
    )
    expect(replies.map(firstText)).toEqual(users.map((user) => JSON.stringify({ caller: user })))
  })
})

describe('MCPDispatcher with skills', () => {
  let base: string
  let catalog: SkillCatalog

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'portcullis-dispatch-skills-'))
    await mkdir(join(base, 'git-workflow/references'), { recursive: true })
    await writeFile(
      join(base, 'git-workflow/SKILL.md'),
      '---\nname: git-workflow\ndescription: Branching rules\n---\nBody',
    )
    await writeFile(join(base, 'git-workflow/references/GUIDE.md'), '# Guide')
    await writeFile(join(base, 'git-workflow/tool.bin'), Uint8Array.from([0xff, 0x00]))
    catalog = await loadSkillCatalog(base)
  })

  afterAll(async () => {
    await rm(base, { recursive: true, force: true })
  })

  it('lists skill files after openapi and before handler resources', async () => {
    const reply = await result(fixture({ skills: catalog }), 'resources/list')
    const resources = reply.result?.resources as Record<string, unknown>[]
    expect(resources.slice(0, 4)).toEqual([
      expect.objectContaining({ uri: 'fw://openapi' }),
      {
        uri: 'skill://git-workflow/SKILL.md',
        name: 'git-workflow',
        description: 'Branching rules',
        mimeType: 'text/markdown',
        size: expect.any(Number),
      },
      expect.objectContaining({ uri: 'skill://git-workflow/references/GUIDE.md', mimeType: 'text/markdown' }),
      expect.objectContaining({ uri: 'skill://git-workflow/tool.bin', mimeType: 'application/octet-stream' }),
    ])
    expect(resources[4]).toMatchObject({ uri: 'fw://config' })
  })

  it('reads skill files as text or blob and misses traversal', async () => {
    const dispatcher = fixture({ skills: catalog })
    const skill = await result(dispatcher, 'resources/read', { uri: 'skill://git-workflow/SKILL.md' })
    expect(firstText(skill)).toContain('name: git-workflow')
    const binary = await result(dispatcher, 'resources/read', { uri: 'skill://git-workflow/tool.bin' })
    expect(binary.result?.contents).toEqual([
      { uri: 'skill://git-workflow/tool.bin', mimeType: 'application/octet-stream', blob: '/wA=' },
    ])
    for (const uri of [
      'skill://git-workflow/../other/SKILL.md',
      'skill://git-workflow/missing.md',
      'skill://nope/SKILL.md',
    ]) {
      expect((await result(dispatcher, 'resources/read', { uri })).error).toEqual({
        code: -32602,
        message: 'Resource not found',
        data: { uri },
      })
    }
  })

  it('refuses a catalog without skillsEnabled and skillsEnabled without a catalog', () => {
    const registry = new MCPResourceRegistry<Target>({ scheme: 'fw' })
    const base = {
      serverInfo: { name: 'x', version: '1' },
      openapi: () => ({}),
      reader: async () => json(200, {}),
    }
    expect(() => new MCPDispatcher({ ...base, registry, skills: catalog })).toThrow(
      expect.objectContaining({ code: 'mcp.skills_mismatch' }),
    )
    const enabled = new MCPResourceRegistry<Target>({ scheme: 'fw', skillsEnabled: true })
    expect(() => new MCPDispatcher({ ...base, registry: enabled })).toThrow(
      expect.objectContaining({ code: 'mcp.skills_mismatch' }),
    )
  })
})

describe('MCPDispatcher completion and errors', () => {
  const dispatcher = fixture()
  const empty = { completion: { values: [], total: 0, hasMore: false } }

  it.each([
    { ref: { type: 'ref/resource', uri: 'app://w/{wid}/f/{fid}' }, argument: { name: 'wid', value: '4' } },
    { ref: { type: 'ref/resource', uri: 'app://unknown/{x}' }, argument: { name: 'x', value: '' } },
    {
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'test' },
    },
  ])('completes %j with an empty completion', async (params) => {
    expect((await result(dispatcher, 'completion/complete', params)).result).toEqual(empty)
  })

  it.each([
    ['a non-object body', 'hello', null],
    ['a number body', 42, null],
    ['jsonrpc 1.0', { jsonrpc: '1.0', id: 11, method: 'ping' }, 11],
    ['a missing jsonrpc', { id: 14, method: 'ping' }, 14],
    ['a missing method', { jsonrpc: '2.0', id: 12 }, 12],
    ['a non-string method', { jsonrpc: '2.0', id: 15, method: 3 }, 15],
    ['a null id', { jsonrpc: '2.0', id: null, method: 'ping' }, null],
    ['a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, null],
    ['an object id', { jsonrpc: '2.0', id: {}, method: 'ping' }, null],
  ])('answers %s with HTTP 400 and -32600', async (_label, message, id) => {
    const outcome = await call(dispatcher, message)
    expect(outcome).toMatchObject({ status: 400, body: { jsonrpc: '2.0', id, error: { code: -32600 } } })
  })

  it('answers an unknown method with -32601 and array params with -32602, both HTTP 200', async () => {
    expect(await call(dispatcher, request('foo/bar', undefined, 10))).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: 10, error: { code: -32601, message: 'Method not found' } },
    })
    expect(await call(dispatcher, request('resources/list', [], 13))).toMatchObject({
      status: 200,
      body: { id: 13, error: { code: -32602 } },
    })
  })

  it('answers unparsable text and invalid UTF-8 with -32700 and id null', async () => {
    for (const body of [
      '{"jsonrpc": "2.0", "id": 1, "method": "ping"',
      Uint8Array.from([0x7b, 0xff, 0x7d]),
    ]) {
      expect(await dispatcher.handleText(body, { context: { user: 'a' } })).toEqual({
        status: 400,
        body: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
      })
    }
  })

  it('rejects batches from 2025-06-18 on and accepts them from 2025-03-26 clients', async () => {
    const batch = [request('ping', undefined, 20), request('resources/list', undefined, 21)]
    for (const version of ['2025-11-25', '2025-06-18']) {
      expect(await call(dispatcher, batch, version)).toMatchObject({
        status: 400,
        body: { id: null, error: { code: -32600 } },
      })
    }
    const legacy = await call(dispatcher, batch)
    expect(legacy.status).toBe(200)
    expect(legacy).toMatchObject({ body: [{ id: 20, result: {} }, { id: 21 }] })
    expect(
      await call(dispatcher, [{ jsonrpc: '2.0', method: 'notifications/initialized' }], '2025-03-26'),
    ).toEqual({ status: 202 })
    expect(await call(dispatcher, [], '2025-03-26')).toMatchObject({
      status: 400,
      body: { error: { code: -32600 } },
    })
    const oversized = Array.from({ length: 17 }, (_, index) => request('ping', undefined, index))
    expect(await call(dispatcher, oversized)).toMatchObject({
      status: 400,
      body: { error: { code: -32600 } },
    })
  })

  it('refuses invalid options at construction', () => {
    const registry = new MCPResourceRegistry<Target>({ scheme: 'fw' })
    const base = { registry, openapi: () => ({}), reader: async () => json(200, {}) }
    expect(() => new MCPDispatcher({ ...base, serverInfo: { name: '', version: '1' } })).toThrow(
      expect.objectContaining({ code: 'mcp.option_invalid' }),
    )
    expect(
      () => new MCPDispatcher({ ...base, serverInfo: { name: 'a', version: '1' }, pageSize: 0 }),
    ).toThrow(expect.objectContaining({ code: 'mcp.option_invalid' }))
  })
})
