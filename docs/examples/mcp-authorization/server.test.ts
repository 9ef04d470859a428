import type { AddressInfo } from 'node:net'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryOAuthServerStore } from '@portcullis/core/authorization-server'
import express from 'express'
import Fastify from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  authorizationServer,
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
})
