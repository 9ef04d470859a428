import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair } from 'jose'
import { Provider } from 'oidc-provider'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  developmentProviderFetch,
  type ProviderFetchOptions,
} from '../../../../docs/examples/oauth/provider-fetch.js'

/**
 * What docs/oauth.md says about trying back-channel logout locally, against oidc-provider itself: its
 * SSRF guard keeps the logout token from a relying party on loopback, and the development `fetch` of
 * docs/examples/oauth/provider-fetch.ts delivers it.
 */
let receiver: Server
let logoutUri = ''
const received: string[] = []

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8')
    })
    request.on('end', () => {
      received.push(body)
      response.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  logoutUri = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/auth/oauth/demo/backchannel-logout`
})

afterAll(async () => {
  receiver.closeAllConnections()
  await new Promise((resolve) => receiver.close(resolve))
})

async function provider(configuration: Record<string, unknown> = {}): Promise<Provider> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  return new Provider('http://127.0.0.1:9/', {
    clients: [
      {
        client_id: 'rp',
        client_secret: 'a secret of the relying party',
        redirect_uris: ['http://127.0.0.1:9/callback'],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        backchannel_logout_uri: logoutUri,
        backchannel_logout_session_required: true,
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    features: { devInteractions: { enabled: false }, backchannelLogout: { enabled: true } },
    ...configuration,
  })
}

/** oidc-provider's own back-channel logout of one session (not in its published typings). */
const logoutClient = (client: unknown) =>
  client as { backchannelLogout(sub: string, sid: string): Promise<void> } | undefined

describe('oidc-provider back-channel logout to a relying party on loopback', () => {
  it('is refused by its SSRF guard by default: the relying party never hears of it', async () => {
    const client = logoutClient(await (await provider()).Client.find('rp'))
    const before = received.length
    const refused = await client?.backchannelLogout('alice', 'sid-1').then(
      () => undefined,
      (error: unknown) => error as Error & { cause?: Error },
    )
    expect(refused?.cause?.message ?? refused?.message).toMatch(/special-use IP address/)
    expect(received.length).toBe(before)
  })

  it('reaches it with the development fetch of docs/examples/oauth/provider-fetch.ts', async () => {
    const client = logoutClient(await (await provider({ fetch: developmentProviderFetch })).Client.find('rp'))
    await client?.backchannelLogout('alice', 'sid-1')
    const body = new URLSearchParams(received.at(-1) ?? '')
    const token = body.get('logout_token') ?? ''
    expect(token.split('.')).toHaveLength(3)
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'))
    expect(claims).toMatchObject({ sub: 'alice', sid: 'sid-1', aud: 'rp' })
  })

  it('keeps the guard for every other host', async () => {
    const seen: (string | undefined)[] = []
    const original = globalThis.fetch
    globalThis.fetch = (async (_url: URL | string, init?: RequestInit & { dispatcher?: unknown }) => {
      seen.push(init?.dispatcher === undefined ? 'unguarded' : 'guarded')
      return new Response(null, { status: 204 })
    }) as typeof fetch
    // Stands in for oidc-provider's guarded dispatcher.
    const guarded = { dispatcher: Symbol('guard') } as unknown as ProviderFetchOptions
    try {
      await developmentProviderFetch('https://rp.example.com/logout', guarded)
      await developmentProviderFetch('http://localhost:3000/logout', guarded)
    } finally {
      globalThis.fetch = original
    }
    expect(seen).toEqual(['guarded', 'unguarded'])
  })
})
