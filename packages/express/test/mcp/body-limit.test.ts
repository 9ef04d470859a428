// The MCP endpoint's body limit over real HTTP: a body over `maxBodyBytes` is 413 problem+json
// `request.body_too_large` (declared or chunked, open or secured endpoint), a body of exactly the limit
// is dispatched, and the OpenAPI document lists the 413.
import { anonymous } from '@portcullis/core/policy'
import express from 'express'
import { afterEach, describe, expect, it } from 'vitest'
import { createSecurity } from '../../src/index.js'
import { createMCPEndpoint, type MCPEndpointOptions } from '../../src/mcp/index.js'
import { expectTooLarge, paddedJson, rawPost, serve } from '../support/raw-post.js'
import { call, MCP_HEADERS } from './fixture.js'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})

async function endpoint(options: MCPEndpointOptions = {}) {
  const app = express()
  const mcp = createMCPEndpoint({ serverInfo: { name: 'limits', version: '1.0.0' }, ...options })
  app.use(mcp)
  await mcp.attach(app)
  const server = await serve(app)
  closers.push(server.close)
  return `${server.url}/mcp`
}

const ping = (bytes: number, chunked = false) => ({
  headers: { ...MCP_HEADERS },
  body: paddedJson(call('ping'), bytes),
  chunked,
})

describe('an MCP body over maxBodyBytes is 413 request.body_too_large', () => {
  it('refuses 2 MB against the default 1 MiB limit', async () => {
    expectTooLarge(await rawPost(await endpoint(), ping(2 * 1024 * 1024)))
  })

  it('refuses one byte over a 1 KiB limit, declared or chunked', async () => {
    const url = await endpoint({ maxBodyBytes: 1024 })
    for (const chunked of [false, true]) {
      const answer = await rawPost(url, ping(1025, chunked))
      expectTooLarge(answer)
      expect(answer.body.detail).toBe('the body must be at most 1024 bytes')
    }
  })

  it('refuses it on an endpoint secured by a security instance too', async () => {
    const security = createSecurity({ mechanisms: [] })
    const url = await endpoint({ security, auth: anonymous(), maxBodyBytes: 1024 })
    expectTooLarge(await rawPost(url, ping(1025, true)))
  })
})

describe('an MCP body of exactly maxBodyBytes is dispatched', () => {
  it('answers a padded ping of exactly 1 KiB, declared or chunked', async () => {
    const url = await endpoint({ maxBodyBytes: 1024 })
    for (const chunked of [false, true]) {
      const answer = await rawPost(url, ping(1024, chunked))
      expect(answer.status).toBe(200)
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: {} })
    }
  })

  it('documents the 413 answer of POST /mcp in the OpenAPI document', async () => {
    const security = createSecurity({ mechanisms: [], openapi: { info: { title: 't', version: '1' } } })
    await endpoint({ security, auth: anonymous() })
    const operation = (security.openapi().paths as Record<string, Record<string, { responses: object }>>)[
      '/mcp'
    ]?.post
    expect(operation?.responses).toHaveProperty('413')
  })
})
