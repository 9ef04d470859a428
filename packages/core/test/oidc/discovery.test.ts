// SSRF-safe discovery: allow-listed issuers, https, public addresses only, no redirects, bounded documents.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigurationError } from '../../src/errors/portcullis-error.js'
import { OIDCDiscoveryClient, type OIDCDiscoveryClientOptions } from '../../src/oidc/discovery-client.js'
import { OIDCError } from '../../src/oidc/errors.js'

const ISSUER = 'https://idp.example'
const PUBLIC_IP = '93.184.216.34'

function document(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    issuer: ISSUER,
    authorization_endpoint: `${ISSUER}/authorize`,
    token_endpoint: `${ISSUER}/token`,
    jwks_uri: `${ISSUER}/jwks`,
    id_token_signing_alg_values_supported: ['RS256'],
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    ...overrides,
  }
}

interface Harness {
  client: OIDCDiscoveryClient
  fetched: string[]
  resolved: string[]
}

/** A discovery client whose network is a map from URL to response, and whose DNS is a map too. */
function harness(
  responses: Record<string, () => Response>,
  dns: Record<string, string[]> = { 'idp.example': [PUBLIC_IP] },
  options: Partial<OIDCDiscoveryClientOptions> = {},
): Harness {
  const fetched: string[] = []
  const resolved: string[] = []
  const client = new OIDCDiscoveryClient({
    allowedIssuers: [ISSUER],
    ...options,
    fetch: async (url) => {
      fetched.push(url)
      const respond = responses[url]
      if (respond === undefined) throw new TypeError('fetch failed')
      return respond()
    },
    resolveHost: async (hostname) => {
      resolved.push(hostname)
      const answers = dns[hostname]
      if (answers === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
      return answers
    },
  })
  return { client, fetched, resolved }
}

const json =
  (body: unknown, init: ResponseInit = {}) =>
  () =>
    new Response(typeof body === 'string' ? body : JSON.stringify(body), {
      status: 200,
      headers: { 'content-type': 'application/json' },
      ...init,
    })

const WELL_KNOWN = `${ISSUER}/.well-known/openid-configuration`

async function reason(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (error instanceof OIDCError) return error.reason
  if (error instanceof ConfigurationError) return error.code
  throw new Error(`unexpected: ${String(error)}`)
}

describe('OIDCDiscoveryClient policy', () => {
  it('discovers an allow-listed https issuer and pins its endpoints', async () => {
    const { client } = harness({ [WELL_KNOWN]: json(document()) })
    const metadata = await client.discover(ISSUER)
    expect(metadata).toMatchObject({
      issuer: ISSUER,
      jwksUri: `${ISSUER}/jwks`,
      tokenEndpoint: `${ISSUER}/token`,
      idTokenSigningAlgorithms: ['RS256'],
      endpointOrigins: [ISSUER],
    })
  })

  it('accepts equivalent spellings of an allow-listed issuer', async () => {
    const { client } = harness({ [WELL_KNOWN]: json(document()) })
    expect((await client.discover('https://IDP.example:443')).issuer).toBe(ISSUER)
  })

  it.each([
    ['no trailing slash', ISSUER],
    ['a trailing slash', `${ISSUER}/`],
    ['a path', `${ISSUER}/tenant/v2.0`],
  ])(
    'keeps an allow-listed issuer with %s exactly as written (issuers compare as strings)',
    async (_name, issuer) => {
      const wellKnown = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`
      const { client, fetched } = harness({ [wellKnown]: json(document({ issuer })) }, undefined, {
        allowedIssuers: [issuer],
      })
      expect((await client.discover(issuer)).issuer).toBe(issuer)
      expect(fetched).toEqual([wellKnown])
      expect(client.toJSON().allowedIssuers).toEqual([issuer])
      // the other spellings are other issuers
      for (const other of [ISSUER, `${ISSUER}/`, `${ISSUER}/tenant/v2.0`].filter(
        (value) => value !== issuer,
      )) {
        expect(client.allows(other), other).toBe(false)
      }
    },
  )

  it('refuses an issuer outside the allow-list before any DNS or network', async () => {
    const { client, fetched, resolved } = harness({})
    expect(await reason(client.discover('https://evil.example'))).toBe('oidc.discovery.issuer_not_allowed')
    expect(await reason(client.discover('https://idp.example/'))).toBe('oidc.discovery.issuer_not_allowed')
    expect(await reason(client.discover('https://idp.example.evil.test'))).toBe(
      'oidc.discovery.issuer_not_allowed',
    )
    expect(fetched).toEqual([])
    expect(resolved).toEqual([])
  })

  it.each([
    ['10.0.0.1'],
    ['127.0.0.1'],
    ['::1'],
    ['169.254.169.254'],
    ['192.168.1.10'],
    ['100.64.0.1'],
    ['fd00::1'],
    ['fe80::1'],
    ['::ffff:10.0.0.1'],
    ['::ffff:169.254.169.254'],
    ['0.0.0.0'],
    ['224.0.0.1'],
  ])('refuses a host resolving to %s without sending anything', async (address) => {
    const { client, fetched } = harness({ [WELL_KNOWN]: json(document()) }, { 'idp.example': [address] })
    expect(await reason(client.discover(ISSUER))).toMatch(/^address-(private|loopback)$/)
    expect(fetched).toEqual([])
  })

  it('refuses when any one DNS answer is private (the connection could use it)', async () => {
    const { client, fetched } = harness(
      { [WELL_KNOWN]: json(document()) },
      { 'idp.example': [PUBLIC_IP, '10.0.0.1'] },
    )
    expect(await reason(client.discover(ISSUER))).toBe('address-private')
    expect(fetched).toEqual([])
  })

  it('allows private addresses only when the policy says so', async () => {
    const { client } = harness(
      { [WELL_KNOWN]: json(document()) },
      { 'idp.example': ['10.0.0.1'] },
      {
        allowPrivateAddresses: true,
      },
    )
    expect((await client.discover(ISSUER)).issuer).toBe(ISSUER)
  })

  it('reports a resolver failure or an empty answer as a discovery failure', async () => {
    expect(await reason(harness({}, {}).client.discover(ISSUER))).toBe('dns')
    expect(await reason(harness({}, { 'idp.example': [] }).client.discover(ISSUER))).toBe('dns-empty')
  })

  it('refuses plain http and loopback issuers unless loopback is explicitly allowed', async () => {
    const { client } = harness({}, {}, { allowedIssuers: ['http://127.0.0.1:9999'] })
    expect(await reason(client.discover('http://127.0.0.1:9999'))).toBe('scheme')
    const https = harness({}, {}, { allowedIssuers: ['https://127.0.0.1'] })
    expect(await reason(https.client.discover('https://127.0.0.1'))).toBe('address-loopback')
  })

  it('refuses ports outside the allow-list', async () => {
    const { client, fetched } = harness({}, {}, { allowedIssuers: ['https://idp.example:8443'] })
    expect(await reason(client.discover('https://idp.example:8443'))).toBe('port')
    expect(fetched).toEqual([])
  })

  it('refuses a redirect without following it', async () => {
    const { client, fetched } = harness({
      [WELL_KNOWN]: () =>
        new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/' } }),
    })
    expect(await reason(client.discover(ISSUER))).toBe('redirect')
    expect(fetched).toEqual([WELL_KNOWN])
  })

  it('refuses a document whose issuer is not exactly the expected one', async () => {
    for (const issuer of [
      `${ISSUER}/`,
      'https://idp.example.evil.test',
      'https://іdp.example',
      'https://IDP.example',
    ]) {
      const { client } = harness({ [WELL_KNOWN]: json(document({ issuer })) })
      expect(await reason(client.discover(ISSUER))).toBe('issuer-mismatch')
    }
  })

  it('pins jwks_uri and endpoints to the issuer origin unless allow-listed', async () => {
    const foreignJwks = document({ jwks_uri: 'https://keys.example/jwks' })
    expect(await reason(harness({ [WELL_KNOWN]: json(foreignJwks) }).client.discover(ISSUER))).toBe(
      'jwks-uri-origin',
    )
    const allowed = harness(
      { [WELL_KNOWN]: json(foreignJwks) },
      { 'idp.example': [PUBLIC_IP], 'keys.example': [PUBLIC_IP] },
      { allowedJwksOrigins: ['https://keys.example'] },
    )
    expect((await allowed.client.discover(ISSUER)).jwksUri).toBe('https://keys.example/jwks')
    const foreignToken = document({ token_endpoint: 'https://tokens.example/token' })
    expect(await reason(harness({ [WELL_KNOWN]: json(foreignToken) }).client.discover(ISSUER))).toBe(
      'endpoint-origin-token_endpoint',
    )
    const internalJwks = harness(
      { [WELL_KNOWN]: json(foreignJwks) },
      { 'idp.example': [PUBLIC_IP], 'keys.example': ['10.1.2.3'] },
      { allowedJwksOrigins: ['https://keys.example'] },
    )
    expect(await reason(internalJwks.client.discover(ISSUER))).toBe('jwks-address-private')
  })

  it('refuses malformed documents', async () => {
    const cases: Array<[() => Response, string]> = [
      [json('{"issuer":"https://idp.example","issuer":"https://idp.example"}'), 'json'],
      [json('[1]'), 'not-an-object'],
      [json(document(), { headers: { 'content-type': 'text/html' } }), 'content-type'],
      [json(document(), { status: 500 }), 'status-500'],
      [json(document({ id_token_signing_alg_values_supported: ['HS256', 'none'] })), 'no-common-algorithm'],
      [json(document({ code_challenge_methods_supported: ['plain'] })), 'pkce-s256-unsupported'],
      [json(document({ require_pushed_authorization_requests: true })), 'par-endpoint-missing'],
      [json(document({ jwks_uri: undefined })), 'jwks-uri-origin'],
      [
        json(document(), { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }),
        'compressed-body',
      ],
    ]
    for (const [response, expected] of cases) {
      expect(await reason(harness({ [WELL_KNOWN]: response }).client.discover(ISSUER))).toBe(expected)
    }
  })

  it('refuses a closed client', async () => {
    const { client } = harness({ [WELL_KNOWN]: json(document()) })
    client.close()
    await expect(client.discover(ISSUER)).rejects.toMatchObject({ code: 'oidc.closed' })
  })
})

describe('OIDCDiscoveryClient against a real loopback server', () => {
  let server: Server
  let base: string
  const hits: string[] = []

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? ''
      hits.push(path)
      const issuer = `${base}${path.split('/.well-known')[0]}`
      if (path.startsWith('/redirect/')) {
        res.writeHead(302, { location: `${base}/target/.well-known/openid-configuration` })
        res.end()
      } else if (path.startsWith('/huge/')) {
        res.writeHead(200, { 'content-type': 'application/json' })
        // Streamed without content-length: the cap must hold while reading.
        const chunk = ' '.repeat(16_384)
        for (let index = 0; index < 64; index += 1) res.write(chunk)
        res.end(JSON.stringify(document({ issuer })))
      } else if (path.startsWith('/slow/')) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.write('{"issuer":')
        // Never finishes.
      } else {
        const body = JSON.stringify(
          document({
            issuer,
            authorization_endpoint: `${issuer}/authorize`,
            token_endpoint: `${issuer}/token`,
            jwks_uri: `${issuer}/jwks`,
          }),
        )
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(body)
      }
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  function client(path: string, options: Partial<OIDCDiscoveryClientOptions> = {}) {
    return new OIDCDiscoveryClient({ allowedIssuers: [`${base}${path}`], allowLoopback: true, ...options })
  }

  it('discovers a loopback issuer when loopback is allowed', async () => {
    expect((await client('/plain').discover(`${base}/plain`)).issuer).toBe(`${base}/plain`)
  })

  it('refuses a redirect and never requests its target', async () => {
    expect(await reason(client('/redirect').discover(`${base}/redirect`))).toBe('redirect')
    expect(hits.some((path) => path.startsWith('/target'))).toBe(false)
  })

  it('refuses an oversized document while streaming', async () => {
    expect(await reason(client('/huge').discover(`${base}/huge`))).toBe('body-too-large')
  })

  it('refuses a slow document at the time limit', async () => {
    const started = Date.now()
    expect(await reason(client('/slow', { timeoutMs: 300 }).discover(`${base}/slow`))).toBe('timeout')
    expect(Date.now() - started).toBeLessThan(3000)
  })
})
