import type { AddressInfo } from 'node:net'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryOAuthServerStore } from '@portcullis/core/authorization-server'
import express from 'express'
import Fastify from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  authorizationServer,
  authorizationServerForCursor,
  connectedAppsPage,
  mountOnExpress,
  mountOnFastify,
  newRingKey,
} from './server.js'

describe('the authorization server example', () => {
  let server: Awaited<ReturnType<typeof authorizationServer>>
  let store: MemoryOAuthServerStore
  const accounts = new MemoryAccountStore()
  beforeAll(async () => {
    store = new MemoryOAuthServerStore({ accounts })
    server = await authorizationServer({
      store,
      accounts,
      interactions: { handle: async (_req, res) => void res.writeHead(204).end() },
      signingKeys: [await newRingKey(), await newRingKey()],
      cookieKeys: ['an-example-cookie-key-of-32-characters!'],
    })
  })
  afterAll(async () => server.close())

  it('serves the path-inserted metadata and the issuer on Express', async () => {
    const app = express()
    mountOnExpress(app, server)
    const http = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => http.once('listening', resolve))
    try {
      const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
      const metadata = (await (
        await fetch(`${origin}/.well-known/oauth-authorization-server/oauth`)
      ).json()) as Record<string, unknown>
      expect(metadata.issuer).toBe('https://app.example/oauth')
      expect(metadata.code_challenge_methods_supported).toEqual(['S256'])
      expect(metadata.registration_endpoint).toBeUndefined()
      const jwks = (await (await fetch(`${origin}/oauth/jwks`)).json()) as { keys: unknown[] }
      expect(jwks.keys).toHaveLength(2)
    } finally {
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    }
  })

  it('serves the same on Fastify', async () => {
    const app = Fastify()
    await mountOnFastify(app, server)
    const origin = await app.listen({ port: 0, host: '127.0.0.1' })
    try {
      const metadata = (await (
        await fetch(`${origin}/.well-known/oauth-authorization-server/oauth`)
      ).json()) as Record<string, unknown>
      expect(metadata.issuer).toBe('https://app.example/oauth')
      expect((await fetch(`${origin}/oauth/jwks`)).status).toBe(200)
    } finally {
      await app.close()
    }
  })

  it('lists and disconnects connected apps', async () => {
    await accounts.createAccount({
      accountId: 'ada',
      username: 'ada',
      passwordHash: 'unused',
      now: new Date(),
    })
    await store.upsert({
      model: 'Grant',
      id: 'grant-1',
      payload: {
        accountId: 'ada',
        clientId: 'registered-client',
        resources: { 'https://app.example/mcp': 'notes:read' },
      },
      expiresAt: undefined,
    })
    expect(await connectedAppsPage(server, 'ada')).toEqual([
      {
        grantId: 'grant-1',
        name: 'registered-client',
        host: undefined,
        scopes: 'notes:read',
        lastUsed: undefined,
      },
    ])
    expect(await store.status('grant-1')).toBeUndefined()
  })

  it('registers Cursor with its cursor:// callback, and refuses that callback to a web client', async () => {
    const cursor = await authorizationServerForCursor({
      store,
      accounts,
      interactions: { handle: async (_req, res) => void res.writeHead(204).end() },
      signingKeys: [await newRingKey()],
      cookieKeys: ['an-example-cookie-key-of-32-characters!'],
    })
    const app = express()
    mountOnExpress(app, cursor)
    const http = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => http.once('listening', resolve))
    try {
      const register = (metadata: Record<string, unknown>) =>
        fetch(`http://127.0.0.1:${(http.address() as AddressInfo).port}/oauth/reg`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_name: 'Cursor',
            redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback', 'http://localhost:8787/callback'],
            token_endpoint_auth_method: 'none',
            ...metadata,
          }),
        })
      const native = await register({})
      expect(native.status).toBe(201)
      expect(((await native.json()) as { application_type: string }).application_type).toBe('native')
      const web = await register({ application_type: 'web' })
      expect(web.status).toBe(400)
      expect(((await web.json()) as { error: string }).error).toBe('invalid_redirect_uri')
      const other = await register({ redirect_uris: ['vscode://vscode.mcp/callback'] })
      expect(((await other.json()) as { error: string }).error).toBe('invalid_redirect_uri')
    } finally {
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
      await cursor.close()
    }
  })
})
