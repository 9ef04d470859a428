import express from 'express'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { decorateChallenges, protectedResource } from './protected-resource.js'

const METADATA = 'https://api.example/.well-known/oauth-protected-resource/mcp'

function appAnswering(
  status: number,
  challenge?: string | string[],
  metadataUrl: string | null = METADATA,
  scopes: readonly string[] = [],
) {
  const app = express()
  app.post('/mcp', (_req, res) => {
    decorateChallenges(res, metadataUrl ?? undefined, scopes)
    if (challenge !== undefined) res.setHeader('WWW-Authenticate', challenge)
    res.status(status).json({ status })
  })
  return app
}

describe('decorateChallenges', () => {
  it('adds a Bearer challenge with resource_metadata to a bare 401', async () => {
    const response = await request(appAnswering(401)).post('/mcp')
    expect(response.headers['www-authenticate']).toBe(`Bearer resource_metadata="${METADATA}"`)
  })

  it('extends an existing Bearer challenge, keeping its parameters', async () => {
    const response = await request(appAnswering(401, 'Bearer realm="api", error="invalid_token"')).post(
      '/mcp',
    )
    expect(response.headers['www-authenticate']).toBe(
      `Bearer realm="api", error="invalid_token", resource_metadata="${METADATA}"`,
    )
  })

  it('appends a Bearer challenge next to another scheme', async () => {
    const response = await request(appAnswering(401, 'ApiKey header="x-api-key"')).post('/mcp')
    expect(response.headers['www-authenticate']).toBe(
      `ApiKey header="x-api-key", Bearer resource_metadata="${METADATA}"`,
    )
  })

  it('falls back to a realm challenge without metadata, and leaves other statuses alone', async () => {
    expect((await request(appAnswering(401, undefined, null)).post('/mcp')).headers['www-authenticate']).toBe(
      'Bearer realm="mcp"',
    )
    expect((await request(appAnswering(200)).post('/mcp')).headers['www-authenticate']).toBeUndefined()
    expect((await request(appAnswering(500)).post('/mcp')).headers['www-authenticate']).toBeUndefined()
  })

  it('answers a 403 with insufficient_scope, the scopes the endpoint needs and the metadata (RFC 6750 3.1)', async () => {
    const scoped = await request(appAnswering(403, undefined, METADATA, ['mcp:read', 'billing'])).post('/mcp')
    expect(scoped.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", scope="mcp:read billing", resource_metadata="${METADATA}"`,
    )
    const bare = await request(appAnswering(403, undefined, null)).post('/mcp')
    expect(bare.headers['www-authenticate']).toBe('Bearer error="insufficient_scope"')
    // an existing Bearer challenge without an error is extended; one naming an error is kept
    const extended = await request(appAnswering(403, 'Bearer realm="api"', null, ['a'])).post('/mcp')
    expect(extended.headers['www-authenticate']).toBe(
      'Bearer realm="api", error="insufficient_scope", scope="a"',
    )
    const kept = await request(appAnswering(403, 'Bearer error="invalid_token"', null)).post('/mcp')
    expect(kept.headers['www-authenticate']).toBe('Bearer error="invalid_token"')
  })
})

describe('protectedResource', () => {
  it('places the metadata under the resource path (RFC 9728 section 3.1)', () => {
    expect(
      protectedResource({
        resource: 'https://api.example/mcp',
        authorizationServers: ['https://id.example'],
      }),
    ).toEqual({
      metadataPath: '/.well-known/oauth-protected-resource/mcp',
      metadataUrl: METADATA,
      document: {
        resource: 'https://api.example/mcp',
        authorization_servers: ['https://id.example'],
        bearer_methods_supported: ['header'],
      },
    })
    expect(
      protectedResource({ resource: 'https://api.example/', authorizationServers: ['https://id.example'] })
        .metadataPath,
    ).toBe('/.well-known/oauth-protected-resource')
  })

  it.each(['ftp://api.example/mcp', 'https://api.example/mcp#frag', '/mcp'])(
    'refuses the resource %s',
    (resource) => {
      expect(() => protectedResource({ resource, authorizationServers: ['https://id.example'] })).toThrow(
        expect.objectContaining({ code: 'mcp.protected_resource_invalid' }),
      )
    },
  )
})
