// OpenID discovery documents through the real discovery client (network and DNS injected as maps): only
// typed refusals, strict JSON (no duplicate members), and whatever is accepted is pinned to allowed
// origins, names the exact issuer and a common algorithm, and keeps PKCE S256 and the code flow. The
// oracle reads a body by the documented rule (docs/oauth.md): UTF-8, one leading byte order mark ignored,
// then JSON whose only whitespace is space, tab, LF and CR.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { OIDCDiscoveryClient } from '../../src/oidc/discovery-client.js'
import type { OIDCProviderMetadata } from '../../src/oidc/metadata.js'
import { anyText, nearValid, RUNS, settled } from './support.js'

const ISSUER = 'https://idp.example'
const WELL_KNOWN = `${ISSUER}/.well-known/openid-configuration`
const PUBLIC_IP = '93.184.216.34'
const JWKS_ORIGINS = [ISSUER, 'https://keys.example']
const ENDPOINT_ORIGINS = [ISSUER, 'https://login.example']
const ALGORITHMS = ['ES256', 'RS256'] as const

function client(body: () => Response): OIDCDiscoveryClient {
  const dns: Record<string, string[]> = {
    'idp.example': [PUBLIC_IP],
    'keys.example': [PUBLIC_IP],
    'login.example': [PUBLIC_IP],
    'evil.example': [PUBLIC_IP],
  }
  return new OIDCDiscoveryClient({
    allowedIssuers: [ISSUER],
    allowedJwksOrigins: ['https://keys.example'],
    allowedEndpointOrigins: ['https://login.example'],
    algorithms: [...ALGORITHMS],
    maxDocumentBytes: 4096,
    fetch: async (url) => {
      if (url !== WELL_KNOWN) throw new TypeError('fetch failed')
      return body()
    },
    resolveHost: async (hostname) => {
      const answers = dns[hostname]
      if (answers === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' })
      return answers
    },
  })
}

const baseDocument = {
  issuer: ISSUER,
  authorization_endpoint: `${ISSUER}/authorize`,
  token_endpoint: 'https://login.example/token',
  jwks_uri: 'https://keys.example/jwks',
  end_session_endpoint: `${ISSUER}/logout`,
  id_token_signing_alg_values_supported: ['RS256', 'ES256'],
  response_types_supported: ['code'],
  code_challenge_methods_supported: ['S256'],
}

/** Adversarial replacements for URL members: other origins, userinfo, fragments, look-alike dots. */
const urlValue = fc.oneof(
  fc.constantFrom(
    `${ISSUER}/x`,
    'https://login.example/y',
    'https://keys.example/k',
    'https://evil.example/authorize',
    'https://idp.example@evil.example/',
    'https://evil.example\\@idp.example/',
    'https://idp.example/x#frag',
    'http://idp.example/x',
    'https://idp.example:8443/x',
    'https://idp\u3002example/x',
    'https://IDP.example/x',
    'https://idp.example.evil.example/',
    '//evil.example/x',
    '/relative',
    ' https://idp.example/x',
    'javascript:alert(1)',
    '',
  ),
  nearValid(
    fc.constantFrom(`${ISSUER}/authorize`, 'https://keys.example/jwks'),
    ['@', '#', '\\', '.', ':', '%2F'],
    'abcdefgh.:/',
  ),
  fc.jsonValue({ maxDepth: 1 }),
)
const listValue = fc.oneof(
  fc.subarray(['RS256', 'ES256', 'EdDSA', 'PS256', 'HS256', 'none', 'S256', 'plain', 'code', 'token']),
  fc.jsonValue({ maxDepth: 1 }),
)
const changeArb = fc.oneof(
  fc.record({
    member: fc.constantFrom(
      'authorization_endpoint',
      'token_endpoint',
      'jwks_uri',
      'end_session_endpoint',
      'revocation_endpoint',
      'pushed_authorization_request_endpoint',
    ),
    value: urlValue,
  }),
  fc.record({
    member: fc.constantFrom(
      'id_token_signing_alg_values_supported',
      'response_types_supported',
      'code_challenge_methods_supported',
      'acr_values_supported',
    ),
    value: listValue,
  }),
  fc.record({
    member: fc.constantFrom('issuer'),
    value: fc.oneof(
      fc.constantFrom(`${ISSUER}/`, 'https://IDP.example', 'https://іdp.example', ISSUER),
      fc.jsonValue({ maxDepth: 1 }),
    ),
  }),
  fc.record({
    member: fc.constantFrom(
      'require_pushed_authorization_requests',
      'authorization_response_iss_parameter_supported',
    ),
    value: fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 1 })),
  }),
  fc.record({
    member: fc.constantFrom('__proto__', 'constructor', 'x'),
    value: fc.jsonValue({ maxDepth: 2 }),
  }),
)

/** A document as text: the base with member changes, some mutated as text or given a duplicate member. */
const documentText = fc
  .tuple(
    fc.array(changeArb, { maxLength: 3 }),
    fc.constantFrom('plain', 'plain', 'duplicate', 'mutated'),
    fc.nat(),
  )
  .chain(([changes, form, at]) => {
    const entries = Object.entries(baseDocument) as Array<[string, unknown]>
    for (const { member, value } of changes) {
      const index = entries.findIndex(([name]) => name === member)
      if (index === -1) entries.push([member, value])
      else entries[index] = [member, value]
    }
    const members = entries
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value)}`)
    if (form === 'duplicate' && members.length > 0) members.push(members[at % members.length] as string)
    const text = `{${members.join(',')}}`
    return form === 'mutated'
      ? nearValid(fc.constant(text), ['"', ',', '{', '}', '\\u0000', '"issuer":"x",'])
      : fc.constant(text)
  })

type Body = string | Uint8Array

/**
 * The document in `body` by the documented rule, or undefined when the rule makes it malformed: the bytes
 * sent (a string goes out as UTF-8, as `Response` sends it) must be UTF-8; one leading byte order mark is
 * dropped (RFC 8259 §8.1); the rest must be JSON, where a byte order mark or any whitespace but space, tab,
 * LF and CR is an error (as for `JSON.parse`). Strictness beyond that (duplicate members) is checked apart.
 */
function documentByRule(body: Body): Record<string, unknown> | undefined {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return undefined
  }
  if (text.startsWith('\ufeff')) text = text.slice(1)
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

function checkMetadata(metadata: OIDCProviderMetadata, body: Body): void {
  const document = documentByRule(body)
  if (document === undefined) throw new Error('discovery accepted a body the documented rule makes malformed')
  expect(metadata.issuer).toBe(ISSUER)
  expect(document.issuer).toBe(ISSUER)
  expect(JWKS_ORIGINS).toContain(new URL(metadata.jwksUri).origin)
  const endpoints = [
    metadata.authorizationEndpoint,
    metadata.tokenEndpoint,
    metadata.endSessionEndpoint,
    metadata.revocationEndpoint,
    metadata.pushedAuthorizationRequestEndpoint,
  ].filter((value): value is string => value !== undefined)
  for (const endpoint of [metadata.jwksUri, ...endpoints]) {
    const url = new URL(endpoint)
    expect(url.href).toBe(endpoint)
    expect(url.username + url.password + url.hash).toBe('')
    expect(['https:', 'http:']).toContain(url.protocol)
  }
  for (const endpoint of endpoints) expect(ENDPOINT_ORIGINS).toContain(new URL(endpoint).origin)
  expect(metadata.endpointOrigins.every((origin) => ENDPOINT_ORIGINS.includes(origin))).toBe(true)
  expect(metadata.idTokenSigningAlgorithms.length).toBeGreaterThan(0)
  const advertised = document.id_token_signing_alg_values_supported as unknown[]
  for (const alg of metadata.idTokenSigningAlgorithms) {
    expect(ALGORITHMS as readonly string[]).toContain(alg)
    expect(advertised).toContain(alg)
  }
  const pkce = document.code_challenge_methods_supported
  if (pkce !== undefined) expect(pkce).toContain('S256')
  const responseTypes = document.response_types_supported
  if (responseTypes !== undefined) expect(responseTypes).toContain('code')
  if (metadata.requirePushedAuthorizationRequests)
    expect(metadata.pushedAuthorizationRequestEndpoint).toBeDefined()
}

async function discover(body: () => Response): Promise<OIDCProviderMetadata | undefined> {
  const result = await settled(() => client(body).discover(ISSUER))
  if (result.ok) return result.value
  expect(result.error.code).toBe('oidc.discovery.failed')
  return undefined
}

const jsonResponse =
  (body: Body, contentType = 'application/json') =>
  () =>
    new Response(body, { status: 200, headers: { 'content-type': contentType } })

describe('OIDC discovery documents under fuzzing', () => {
  it('accepts only pinned, exact, strict documents; refuses the rest with oidc.discovery.failed', async () => {
    await fc.assert(
      fc.asyncProperty(documentText, async (text) => {
        const metadata = await discover(jsonResponse(text))
        if (metadata !== undefined) checkMetadata(metadata, text)
      }),
      { numRuns: RUNS.io },
    )
  })

  it('follows the byte-order-mark and whitespace rule both ways for a valid document in any framing', async () => {
    const framing = fc.array(
      fc.constantFrom(
        '\ufeff',
        ' ',
        '\t',
        '\n',
        '\r',
        '\u00a0',
        '\u2028',
        '\u000b',
        '\u000c',
        '\u200b',
        '\u3000',
      ),
      { maxLength: 3 },
    )
    await fc.assert(
      fc.asyncProperty(framing, framing, async (before, after) => {
        const text = `${before.join('')}${JSON.stringify(baseDocument)}${after.join('')}`
        const metadata = await discover(jsonResponse(text))
        expect(metadata !== undefined).toBe(documentByRule(text) !== undefined)
        if (metadata !== undefined) checkMetadata(metadata, text)
      }),
      { numRuns: RUNS.io },
    )
  })

  it('never accepts a document with a duplicate member, whichever copy is the safe one', async () => {
    const members = Object.entries(baseDocument)
    await fc.assert(
      fc.asyncProperty(fc.nat(members.length - 1), urlValue, async (index, other) => {
        const [name, value] = members[index] as [string, unknown]
        const text = JSON.stringify(baseDocument).replace(
          /}$/,
          `,${JSON.stringify(name)}:${JSON.stringify(index % 2 === 0 ? value : other)}}`,
        )
        expect(await discover(jsonResponse(text))).toBeUndefined()
      }),
      { numRuns: 50 },
    )
  })

  it('refuses arbitrary bodies, invalid UTF-8, other media types and oversized documents with the typed error', async () => {
    const body = fc.oneof(
      anyText(200).map((text) => ({ text: text as string | Uint8Array, type: 'application/json' })),
      fc
        .uint8Array({ maxLength: 100 })
        .map((bytes) => ({ text: bytes as string | Uint8Array, type: 'application/json' })),
      fc
        .constantFrom('text/html', 'application/jsonp', 'application/json;charset=utf-8', '')
        .map((type) => ({ text: JSON.stringify(baseDocument) as string | Uint8Array, type })),
      fc.constant({
        text: JSON.stringify({ ...baseDocument, padding: 'x'.repeat(5000) }) as string | Uint8Array,
        type: 'application/json',
      }),
      fc.integer({ min: 60, max: 200 }).map((levels) => ({
        text: `{"issuer":${'['.repeat(levels)}${']'.repeat(levels)}}` as string | Uint8Array,
        type: 'application/json',
      })),
    )
    await fc.assert(
      fc.asyncProperty(body, async ({ text, type }) => {
        const metadata = await discover(jsonResponse(text, type))
        if (metadata !== undefined) {
          expect(type).toMatch(/^application\/json/)
          checkMetadata(metadata, text)
        }
      }),
      { numRuns: RUNS.io },
    )
  })
})

/** A fixed case: a body and whether discovery accepts it. */
interface FixedCase {
  readonly name: string
  readonly body: Body
  readonly accepted: boolean
}

const BASE_TEXT = JSON.stringify(baseDocument)
const utf8 = (text: string) => new TextEncoder().encode(text)

describe('OIDC discovery: counterexamples found by fuzzing, and the rule around them', () => {
  const cases: FixedCase[] = [
    {
      // FC_SEED=-1339085825 FC_PATH=113:64:1 (the oracle parsed the raw text with JSON.parse and threw)
      name: 'BOM: a document led by one byte order mark is accepted (fast-check seed -1339085825, path 113:64:1)',
      body: `\ufeff${JSON.stringify({
        ...baseDocument,
        code_challenge_methods_supported: [
          'RS256',
          'ES256',
          'EdDSA',
          'PS256',
          'HS256',
          'none',
          'S256',
          'plain',
          'code',
          'token',
        ],
      })}`,
      accepted: true,
    },
    {
      name: 'BOM: one leading byte order mark as raw bytes EF BB BF is accepted',
      body: new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(BASE_TEXT)]),
      accepted: true,
    },
    {
      name: 'BOM: JSON whitespace around the document is accepted',
      body: ` \t\r\n${BASE_TEXT}\n \t`,
      accepted: true,
    },
    {
      name: 'BOM: a byte order mark then JSON whitespace is accepted',
      body: `\ufeff \n${BASE_TEXT}\r\n`,
      accepted: true,
    },
    {
      name: 'BOM: two leading byte order marks are refused',
      body: `\ufeff\ufeff${BASE_TEXT}`,
      accepted: false,
    },
    {
      name: 'BOM: a byte order mark after leading whitespace is refused',
      body: ` \ufeff${BASE_TEXT}`,
      accepted: false,
    },
    { name: 'BOM: a trailing byte order mark is refused', body: `${BASE_TEXT}\ufeff`, accepted: false },
    {
      name: 'BOM: a byte order mark between members is refused',
      body: BASE_TEXT.replace(',', ',\ufeff'),
      accepted: false,
    },
    {
      name: 'BOM: a UTF-16 byte order mark (not UTF-8) is refused',
      body: new Uint8Array([0xfe, 0xff, ...utf8(BASE_TEXT)]),
      accepted: false,
    },
    { name: 'whitespace: a leading no-break space is refused', body: `\u00a0${BASE_TEXT}`, accepted: false },
    {
      name: 'whitespace: a trailing line separator U+2028 is refused',
      body: `${BASE_TEXT}\u2028`,
      accepted: false,
    },
    {
      name: 'whitespace: a vertical tab between members is refused',
      body: BASE_TEXT.replace(',', ',\u000b'),
      accepted: false,
    },
  ]

  for (const { name, body, accepted } of cases) {
    it(name, async () => {
      expect(documentByRule(body) !== undefined).toBe(accepted)
      const metadata = await discover(jsonResponse(body))
      expect(metadata !== undefined).toBe(accepted)
      if (metadata !== undefined) checkMetadata(metadata, body)
    })
  }
})
