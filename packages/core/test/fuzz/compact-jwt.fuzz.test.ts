// Compact JWTs and JOSE headers: the structural parser agrees with an independent oracle (canonical
// base64url, strict UTF-8, JSON objects, no duplicate members, bounded depth), its view of the header
// equals what the signature library reads, and a token with any change to header, payload or signature
// never authenticates through the real workload-JWT mechanism (real keys, real JWKS server on loopback).
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuthenticationMechanism } from '../../src/authentication/mechanism.js'
import { CachedJWKSProvider } from '../../src/jwks/cached-jwks-provider.js'
import { extractBearer } from '../../src/workload-jwt/bearer.js'
import { parseCompactJwt } from '../../src/workload-jwt/compact-jwt.js'
import { workloadJwt } from '../../src/workload-jwt/workload-jwt-mechanism.js'
import { headerSource } from '../support/credential-source.js'
import { type JwksServer, startJwksServer } from '../support/jwks-server.js'
import { generateTestKey, signCompact, type TestKey } from '../support/jwt.js'
import { anyText, BASE64URL_ALPHABET, b64u, linearIn, nearValid, RUNS } from './support.js'

const MAX_BYTES = 16_384
const MAX_DEPTH = 32
const REASONS = ['jwt.oversized', 'jwt.malformed', 'jwt.non_canonical', 'jwt.bad_header', 'jwt.bad_payload']

/**
 * Independent scan of a text JSON.parse already accepted: whether some object repeats a member name, and
 * the deepest container nesting. A tokenizer, not a parser: it relies on the text being valid JSON.
 */
function scanJson(text: string): { duplicate: boolean; depth: number } {
  const token = /\s*("(?:[^"\\]|\\.)*"|[{}[\],:]|[^\s{}[\],:"]+)/y
  const stack: Array<{ keys: Set<string>; expectKey: boolean } | undefined> = []
  let depth = 0
  let duplicate = false
  for (let match = token.exec(text); match !== null && match[1] !== undefined; match = token.exec(text)) {
    const part = match[1]
    const top = stack[stack.length - 1]
    if (part === '{' || part === '[') {
      stack.push(part === '{' ? { keys: new Set(), expectKey: true } : undefined)
      depth = Math.max(depth, stack.length)
    } else if (part === '}' || part === ']') stack.pop()
    else if (part === ':' && top !== undefined) top.expectKey = false
    else if (part === ',' && top !== undefined) top.expectKey = true
    else if (top?.expectKey === true && part.startsWith('"')) {
      const name = JSON.parse(part) as string
      if (top.keys.has(name)) duplicate = true
      top.keys.add(name)
    }
  }
  return { duplicate, depth }
}

/**
 * The decoded JSON object of a segment per the oracle (canonical base64url, UTF-8, a JSON object of finite
 * numbers without duplicate members, at most 32 deep), or undefined when it must be refused.
 */
function oracleSegment(segment: string): Record<string, unknown> | undefined {
  const bytes = Buffer.from(segment, 'base64url')
  if (bytes.toString('base64url') !== segment) return undefined
  let text: string
  try {
    // like jose's decoder, a leading byte order mark is dropped; anything else that is not UTF-8 is refused
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
  let value: unknown
  let finite = true
  try {
    value = JSON.parse(text, (_name, item: unknown) => {
      if (typeof item === 'number' && !Number.isFinite(item)) finite = false
      return item
    })
  } catch {
    return undefined
  }
  if (!finite || value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const { duplicate, depth } = scanJson(text)
  return duplicate || depth > MAX_DEPTH ? undefined : (value as Record<string, unknown>)
}

function oracle(token: string): { header: unknown; payload: unknown } | undefined {
  if (token.length > MAX_BYTES || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token))
    return undefined
  const [header = '', payload = '', signature = ''] = token.split('.')
  if (Buffer.from(signature, 'base64url').toString('base64url') !== signature) return undefined
  const decodedHeader = oracleSegment(header)
  const decodedPayload = oracleSegment(payload)
  if (decodedHeader === undefined || decodedPayload === undefined) return undefined
  return { header: decodedHeader, payload: decodedPayload }
}

function checkParse(token: string): void {
  const parsed = parseCompactJwt(token, MAX_BYTES)
  const expected = oracle(token)
  if (!parsed.ok) expect(REASONS).toContain(parsed.reason)
  expect(parsed.ok).toBe(expected !== undefined)
  if (parsed.ok && expected !== undefined) {
    expect(JSON.stringify(parsed.jwt.header)).toBe(JSON.stringify(expected.header))
    expect(JSON.stringify(parsed.jwt.payload)).toBe(JSON.stringify(expected.payload))
  }
}

const claimsArb = fc.record({
  sub: fc.string({ minLength: 1, maxLength: 12 }),
  scope: fc.constantFrom('a', 'a b', 'invoices:read'),
  extra: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
})
const unsignedToken = fc
  .tuple(
    fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
    claimsArb,
    fc.uint8Array({ minLength: 1, maxLength: 64 }),
  )
  .map(
    ([header, claims, signature]) =>
      `${b64u(JSON.stringify({ alg: 'ES256', ...header }))}.${b64u(JSON.stringify(claims))}.${b64u(signature)}`,
  )

describe('parseCompactJwt under fuzzing', () => {
  it('agrees with the oracle on arbitrary text and never throws', () => {
    const text = fc.oneof(
      anyText(120),
      fc.tuple(anyText(20), anyText(20), anyText(20)).map(([a, b, c]) => `${b64u(a)}.${b64u(b)}.${c}`),
    )
    fc.assert(fc.property(text, checkParse), { numRuns: RUNS.pure })
  })

  it('agrees with the oracle on mutated tokens (flipped characters, cut or added segments, padding)', () => {
    const tokens = ['.', '=', '==', '+', '/', '.e30', b64u('{"a":1,"a":2}')]
    fc.assert(fc.property(nearValid(unsignedToken, tokens, BASE64URL_ALPHABET), checkParse), {
      numRuns: RUNS.pure,
    })
  })

  it('agrees with the oracle when the header or payload JSON itself is mutated before encoding', () => {
    const json = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 })
    const mutatedJson = nearValid(
      json.map((value) => JSON.stringify({ alg: 'ES256', kid: 'k1', ...value })),
      [
        '"alg":"none",',
        '"kid":"k2",',
        ',"alg":"ES256"',
        '\\u0000',
        '\\ud800',
        '\ufeff',
        '{',
        '[',
        '1e999',
        ' ',
      ],
    )
    const token = fc
      .tuple(mutatedJson, fc.boolean(), fc.uint8Array({ minLength: 1, maxLength: 8 }))
      .map(([text, inHeader, signature]) => {
        const other = b64u('{"sub":"svc"}')
        return inHeader
          ? `${b64u(text)}.${other}.${b64u(signature)}`
          : `${other}.${b64u(text)}.${b64u(signature)}`
      })
    fc.assert(fc.property(token, checkParse), { numRuns: RUNS.pure })
  })

  it('refuses headers and payloads with duplicate members, BOM-free non-objects and deep nesting', () => {
    const segment = fc.oneof(
      fc.constantFrom('{"alg":"ES256","alg":"none"}', '{"kid":"a","kid":"b"}', '[]', '"x"', '1', 'null'),
      fc
        .integer({ min: MAX_DEPTH, max: MAX_DEPTH + 8 })
        .map((levels) => `{"a":${'['.repeat(levels)}${']'.repeat(levels)}}`),
    )
    fc.assert(
      fc.property(segment, fc.boolean(), (json, inHeader) => {
        const good = b64u('{"alg":"ES256"}')
        const token = inHeader ? `${b64u(json)}.${good}.c2ln` : `${good}.${b64u(json)}.c2ln`
        checkParse(token)
      }),
      { numRuns: RUNS.structured },
    )
  })

  it('refuses a megabyte token before looking inside it', () => {
    const huge = `${'A'.repeat(512 * 1024)}.${'A'.repeat(512 * 1024)}.AA`
    const parsed = linearIn(huge, () => parseCompactJwt(huge, MAX_BYTES))
    expect(parsed).toEqual({ ok: false, reason: 'jwt.oversized' })
  })
})

describe('extractBearer under fuzzing', () => {
  it('never throws and reads exactly RFC 6750 `Bearer <b64token>` with one space', () => {
    const values = fc.oneof(
      anyText(60),
      nearValid(fc.constant('Bearer abc.DEF-_~+/=='), [' ', '\t', ',', 'bearer', 'Basic ']),
    )
    fc.assert(
      fc.property(values, (value) => {
        const read = extractBearer(value)
        const scheme = /^bearer(?:\s|$)/i.test(value)
        const token = /^bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(value)?.[1]
        if (!scheme) expect(read).toEqual({ kind: 'absent' })
        else if (token === undefined) expect(read).toEqual({ kind: 'malformed' })
        else expect(read).toEqual({ kind: 'token', token })
      }),
      { numRuns: RUNS.pure },
    )
  })
})

describe('workload JWT verification under fuzzing', () => {
  const ISSUER = 'https://issuer.fuzz.example'
  const AUDIENCE = 'https://api.fuzz.example'
  const NOW = Math.floor(Date.UTC(2030, 0, 1) / 1000)
  let server: JwksServer
  let jwks: CachedJWKSProvider
  let mechanism: AuthenticationMechanism
  let keys: { es: TestKey; ed: TestKey }

  beforeAll(async () => {
    server = await startJwksServer()
    keys = { es: generateTestKey('ES256', 'es-1'), ed: generateTestKey('EdDSA', 'ed-1') }
    server.setDocument({ keys: [keys.es.jwk, keys.ed.jwk] })
    jwks = new CachedJWKSProvider({ allowInsecureLoopback: true, clock: () => NOW * 1000 })
    mechanism = workloadJwt({
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksUri: server.url,
      jwks,
      clock: () => NOW * 1000,
    })
  })
  afterAll(async () => {
    await jwks.close()
    await server.close()
  })

  const present = (token: string) =>
    Promise.resolve(mechanism.authenticate(headerSource({ authorization: `Bearer ${token}` })))

  const headerOf = (key: TestKey): Record<string, unknown> => ({ alg: key.alg, typ: 'at+jwt', kid: key.kid })
  const payloadOf = (claims: { sub: string; scope: string }, jti: string): Record<string, unknown> => ({
    iss: ISSUER,
    sub: claims.sub.trim() === '' ? 'svc' : `svc-${claims.sub.replace(/[\s\p{C}]/gu, '')}`,
    aud: AUDIENCE,
    iat: NOW,
    exp: NOW + 300,
    client_id: 'fuzz-client',
    jti,
    scope: claims.scope,
  })
  const signed = fc
    .record({ useEd: fc.boolean(), claims: claimsArb, jti: fc.stringMatching(/^[a-z0-9]{8}$/) })
    .map(({ useEd, claims, jti }) => {
      const key = useEd ? keys.ed : keys.es
      const header = headerOf(key)
      const payload = payloadOf(claims, jti)
      return { key, header, payload, token: signCompact({ header, payload, key }) }
    })

  async function neverAuthenticates(original: string, tampered: string): Promise<void> {
    if (tampered === original) return
    const outcome = await present(tampered)
    expect(outcome.kind).toBe('invalid')
  }

  it('authenticates the untouched token, and never one with any character-level change', async () => {
    const tokens = ['.', '=', '.e30', '..']
    const pairs = signed.chain(({ token }) =>
      nearValid(fc.constant(token), tokens, BASE64URL_ALPHABET).map((tampered) => ({ token, tampered })),
    )
    await fc.assert(
      fc.asyncProperty(pairs, async ({ token, tampered }) => {
        expect((await present(token)).kind).toBe('authenticated')
        await neverAuthenticates(token, tampered)
      }),
      { numRuns: RUNS.crypto },
    )
  })

  it('never authenticates a re-encoded header: other alg or kid, key-carrying headers, typ, duplicates', async () => {
    const headerChange = fc.oneof(
      fc.record({
        alg: fc.constantFrom('none', 'HS256', 'RS256', 'PS256', 'ES256', 'EdDSA', 'es256', 'ES384'),
      }),
      fc.record({ kid: fc.constantFrom('es-1', 'ed-1', 'es-2', 'ES-1', 'es-1 ', '') }),
      fc.constantFrom<Record<string, unknown>>(
        { jku: 'https://evil.example/jwks' },
        { jwk: { kty: 'oct', k: 'AAAA' } },
        { x5u: 'https://evil.example/cert' },
        { x5c: ['AAAA'] },
        { crit: ['exp'] },
        { b64: false },
        { typ: 'JWT' },
        { typ: 'application/at+jwt' },
        { typ: 'at+jwt ' },
        { cty: 'JWT' },
      ),
    )
    await fc.assert(
      fc.asyncProperty(signed, headerChange, fc.boolean(), async ({ header, token }, change, duplicate) => {
        const [, payload = '', signature = ''] = token.split('.')
        const changed = JSON.stringify({ ...header, ...change })
        const text = duplicate ? changed.replace(/^\{/, `{"alg":${JSON.stringify(header.alg)},`) : changed
        await neverAuthenticates(token, `${b64u(text)}.${payload}.${signature}`)
      }),
      { numRuns: RUNS.crypto },
    )
  })

  it('never authenticates a re-encoded payload: other subject, audience, issuer, lifetime or scope', async () => {
    const payloadChange = fc.oneof(
      fc.record({ sub: fc.constantFrom('svc-admin', 'root', '') }),
      fc.record({
        aud: fc.constantFrom([AUDIENCE, 'https://other.example'], 'https://other.example', `${AUDIENCE}/`),
      }),
      fc.record({ iss: fc.constantFrom(`${ISSUER}/`, 'https://evil.example') }),
      fc.record({ exp: fc.integer({ min: NOW + 301, max: NOW + 3600 }) }),
      fc.record({ scope: fc.constantFrom('admin', 'a b admin', 'invoices:read invoices:write') }),
      fc.constant<Record<string, unknown>>({ extra: true }),
    )
    await fc.assert(
      fc.asyncProperty(signed, payloadChange, async ({ payload, token }, change) => {
        const [header = '', , signature = ''] = token.split('.')
        const tampered = `${header}.${b64u(JSON.stringify({ ...payload, ...change }))}.${signature}`
        await neverAuthenticates(token, tampered)
      }),
      { numRuns: RUNS.crypto },
    )
  })

  it('never authenticates a signature from the other key or over other bytes', async () => {
    await fc.assert(
      fc.asyncProperty(signed, async ({ key, header, payload, token }) => {
        const other = key === keys.es ? keys.ed : keys.es
        const [head = '', body = ''] = token.split('.')
        const foreign =
          signCompact({ header: { ...header, alg: other.alg }, payload, key: other }).split('.')[2] ?? ''
        await neverAuthenticates(token, `${head}.${body}.${foreign}`)
        const [, , resigned = ''] = signCompact({ header, payload: { ...payload, jti: 'x' }, key }).split('.')
        await neverAuthenticates(token, `${head}.${body}.${resigned}`)
      }),
      { numRuns: RUNS.crypto },
    )
  })
})
