import type { Express } from 'express'
import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { call, checklistApp, rpc } from './fixture.js'

// Interoperability checklist section 7.1 (handshake and liveness); case 7 (the real SDK client) is in
// sdk-client.test.ts.
let app: Express

beforeAll(async () => {
  ;({ app } = await checklistApp())
})

const initialize = (protocolVersion: string) =>
  call('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } })

describe('checklist 7.1 handshake and liveness', () => {
  it('7.1.1 initialize 2025-11-25 without a version header answers JSON, capabilities and no session id', async () => {
    const response = await rpc(app, initialize('2025-11-25'), { 'MCP-Protocol-Version': undefined })
    expect(response.status).toBe(200)
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    expect(response.headers['mcp-session-id']).toBeUndefined()
    expect(response.body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { resources: { subscribe: false, listChanged: false }, completions: {} },
        serverInfo: { name: 'checklist', version: '1.0.0' },
      },
    })
  })

  it.each(['2025-06-18', '2025-03-26'])('7.1.2 initialize %s echoes the version', async (version) => {
    const response = await rpc(app, initialize(version), { 'MCP-Protocol-Version': undefined })
    expect(response.status).toBe(200)
    expect(response.body.result.protocolVersion).toBe(version)
  })

  it.each(['1999-01-01', '2026-07-28'])(
    '7.1.3 initialize %s answers 2025-11-25, not an error',
    async (version) => {
      const response = await rpc(app, initialize(version), { 'MCP-Protocol-Version': undefined })
      expect(response.status).toBe(200)
      expect(response.body.result.protocolVersion).toBe('2025-11-25')
    },
  )

  it('7.1.4 notifications/initialized answers 202 with an empty body', async () => {
    const response = await rpc(app, { jsonrpc: '2.0', method: 'notifications/initialized' })
    expect(response.status).toBe(202)
    expect(response.text).toBe('')
    expect(response.headers['content-length'] ?? '0').toBe('0')
  })

  it('7.1.5 ping echoes a string id, without prior initialize and without a version header', async () => {
    const response = await rpc(app, call('ping', undefined, 'p1'), { 'MCP-Protocol-Version': undefined })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ jsonrpc: '2.0', id: 'p1', result: {} })
  })

  it('7.1.6 GET and DELETE answer 405 with Allow: POST and a JSON-RPC body', async () => {
    const get = await request(app).get('/mcp').set('Accept', 'text/event-stream')
    expect(get.status).toBe(405)
    expect(get.headers.allow).toBe('POST')
    expect(get.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } })
    const remove = await request(app).delete('/mcp').set('Mcp-Session-Id', 'abc')
    expect(remove.status).toBe(405)
    expect(remove.headers.allow).toBe('POST')
    for (const method of ['put', 'patch'] as const) {
      expect((await request(app)[method]('/mcp')).status).toBe(405)
    }
  })
})
