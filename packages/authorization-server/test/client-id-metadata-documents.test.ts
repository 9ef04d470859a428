import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AddressLookup } from '../src/index.js'
import { TEST_CA } from './support/document-server.js'
import { type Harness, RESOURCE, startHarness } from './support/harness.js'
import { authorize, redeemCode } from './support/oauth-client.js'

const REDIRECT = 'http://127.0.0.1:49152/callback'

/** The error code of an authorization the server answered itself (no redirect to the client). */
async function refusal(
  issuer: string,
  clientId: string,
  redirectUri = REDIRECT,
): Promise<{ status: number; code: unknown }> {
  const outcome = await authorize(issuer, { clientId, redirectUri, resource: RESOURCE })
  expect(outcome.redirect).toBeUndefined()
  const body = (await outcome.response.json()) as { code?: unknown }
  expect(outcome.response.headers.get('content-type')).toContain('application/problem+json')
  return { status: outcome.response.status, code: body.code }
}

describe('client id metadata documents (loopback development mode)', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({
      overrides: {
        clientIdMetadataDocuments: {
          allowInsecureLoopback: true,
          ca: TEST_CA,
          // Long enough for a first TLS fetch on a loaded machine, well below the slow documents' 5 s.
          fetchTimeoutMs: 1500,
          maxBytes: 1024,
        },
      },
    })
  })
  afterAll(async () => h.close())

  it('are fetched once and cached', async () => {
    const clientId = h.documents.client('/cached.json')
    for (let i = 0; i < 2; i += 1) {
      const outcome = await authorize(h.issuer, { clientId, redirectUri: REDIRECT, resource: RESOURCE })
      expect(outcome.code).toBeTypeOf('string')
    }
    expect(h.documents.hits.get('/cached.json')).toBe(1)
  })

  it('apply the RFC 8252 loopback rule to native clients: any port on 127.0.0.1', async () => {
    const clientId = h.documents.client('/native.json')
    for (const port of [1024, 65535]) {
      const redirectUri = `http://127.0.0.1:${port}/callback`
      const outcome = await authorize(h.issuer, { clientId, redirectUri, resource: RESOURCE })
      expect(outcome.redirect?.origin).toBe(`http://127.0.0.1:${port}`)
      const token = await redeemCode(
        h.issuer,
        clientId,
        redirectUri,
        outcome.code as string,
        outcome.verifier,
      )
      expect(token.status).toBe(200)
    }
  })

  it('treat a document without application_type as native (the loopback rule applies)', async () => {
    const clientId = h.documents.client('/default-type.json', { application_type: undefined })
    const redirectUri = 'http://127.0.0.1:61000/callback'
    const outcome = await authorize(h.issuer, { clientId, redirectUri, resource: RESOURCE })
    expect(outcome.code).toBeTypeOf('string')
    expect(await refusal(h.issuer, clientId, 'http://127.0.0.1:61000/elsewhere')).toEqual({
      status: 400,
      code: 'invalid_redirect_uri',
    })
  })

  it('refuse a redirect URI the document does not list (exact match otherwise)', async () => {
    const clientId = h.documents.client('/web.json', {
      application_type: 'web',
      redirect_uris: ['https://client.example/callback'],
    })
    expect(await refusal(h.issuer, clientId, 'https://client.example/other')).toEqual({
      status: 400,
      code: 'invalid_redirect_uri',
    })
    expect(await refusal(h.issuer, clientId, 'https://client.example:8443/callback')).toEqual({
      status: 400,
      code: 'invalid_redirect_uri',
    })
    expect(await refusal(h.issuer, clientId, 'http://127.0.0.1:5000/callback')).toEqual({
      status: 400,
      code: 'invalid_redirect_uri',
    })
  })

  it('refuse a document whose client_id is not its URL', async () => {
    h.documents.routes.set('/impostor.json', {
      body: {
        client_id: `${h.documents.origin}/someone-else.json`,
        redirect_uris: ['http://127.0.0.1/callback'],
        application_type: 'native',
        token_endpoint_auth_method: 'none',
      },
    })
    expect(await refusal(h.issuer, `${h.documents.origin}/impostor.json`)).toEqual({
      status: 400,
      code: 'invalid_client_metadata',
    })
  })

  it('never follow a redirect', async () => {
    const target = h.documents.client('/target.json')
    h.documents.routes.set('/moved.json', { status: 302, headers: { location: target }, body: '' })
    expect((await refusal(h.issuer, `${h.documents.origin}/moved.json`)).code).toBe('invalid_client')
    expect(h.documents.hits.get('/moved.json')).toBeGreaterThanOrEqual(1)
    expect(h.documents.hits.get('/target.json')).toBeUndefined()
  })

  it('refuse an oversized document, announced or streamed', async () => {
    const big = { client_name: 'x'.repeat(2000) }
    h.documents.client('/big.json', big)
    expect((await refusal(h.issuer, `${h.documents.origin}/big.json`)).code).toBe('invalid_client')
    const streamed = h.documents.client('/streamed.json', big)
    const route = h.documents.routes.get('/streamed.json')
    h.documents.routes.set('/streamed.json', { body: route?.body, chunked: true })
    expect((await refusal(h.issuer, streamed)).code).toBe('invalid_client')
  })

  it('refuse a document whose body does not finish in time (the bound covers the body)', async () => {
    const clientId = h.documents.client('/dribble.json')
    const route = h.documents.routes.get('/dribble.json')
    h.documents.routes.set('/dribble.json', { body: route?.body, dribbleMs: 20_000 })
    const started = performance.now()
    expect((await refusal(h.issuer, clientId)).code).toBe('invalid_client')
    // Refused by the fetch bound (1.5 s here), long before the document would have arrived (20 s).
    expect(performance.now() - started).toBeLessThan(15_000)
  })

  it('refuse a document that does not arrive in time', async () => {
    const clientId = h.documents.client('/slow.json')
    const route = h.documents.routes.get('/slow.json')
    h.documents.routes.set('/slow.json', { body: route?.body, delayMs: 20_000 })
    const started = performance.now()
    expect((await refusal(h.issuer, clientId)).code).toBe('invalid_client')
    // Refused by the fetch bound (1.5 s here), long before the document would have arrived (20 s).
    expect(performance.now() - started).toBeLessThan(15_000)
  })
})

describe('client id metadata documents with the address guard on', () => {
  let h: Harness
  const names: Record<string, string> = {
    'docs.test': '127.0.0.1',
    'private.test': '10.0.0.7',
    'mapped.test': '::ffff:127.0.0.1',
    'linklocal.test': '169.254.169.254',
  }
  const lookup: AddressLookup = async (hostname) => {
    const address = names[hostname]
    if (address === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
    return [{ address, family: address.includes(':') ? 6 : 4 }]
  }
  beforeAll(async () => {
    h = await startHarness({ overrides: { clientIdMetadataDocuments: { ca: TEST_CA, lookup } } })
  })
  afterAll(async () => h.close())

  it.each(Object.keys(names))(
    'refuses a client id whose host %s resolves to a non-public address',
    async (host) => {
      const port = new URL(h.documents.origin).port
      h.documents.client(`/${host}.json`)
      const clientId = `https://${host}:${port}/${host}.json`
      h.documents.routes.set(`/${host}.json`, {
        body: { ...(h.documents.routes.get(`/${host}.json`)?.body as object), client_id: clientId },
      })
      expect((await refusal(h.issuer, clientId)).code).toBe('invalid_client')
      expect(h.documents.hits.get(`/${host}.json`)).toBeUndefined()
    },
  )

  it('refuses address literals: loopback, private and mapped', async () => {
    const port = new URL(h.documents.origin).port
    for (const host of ['127.0.0.1', '10.1.2.3', '[::1]', '[::ffff:7f00:1]']) {
      h.documents.client('/literal.json')
      expect((await refusal(h.issuer, `https://${host}:${port}/literal.json`)).code).toBe('invalid_client')
    }
    expect(h.documents.hits.get('/literal.json')).toBeUndefined()
  })
})

describe('client id metadata documents resolved through the lookup (loopback allowed)', () => {
  it('reach the document through the resolved address: the guard sits on the real connection path', async () => {
    const lookup: AddressLookup = async () => [{ address: '127.0.0.1', family: 4 }]
    const h = await startHarness({
      overrides: { clientIdMetadataDocuments: { allowInsecureLoopback: true, ca: TEST_CA, lookup } },
    })
    try {
      const port = new URL(h.documents.origin).port
      const clientId = `https://docs.test:${port}/named.json`
      h.documents.client('/named.json')
      h.documents.routes.set('/named.json', {
        body: { ...(h.documents.routes.get('/named.json')?.body as object), client_id: clientId },
      })
      const outcome = await authorize(h.issuer, { clientId, redirectUri: REDIRECT, resource: RESOURCE })
      expect(outcome.code).toBeTypeOf('string')
      expect(h.documents.hits.get('/named.json')).toBe(1)
    } finally {
      await h.close()
    }
  })
})
