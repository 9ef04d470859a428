// Strict JSON (used for JOSE headers, JWT payloads, JWKS and discovery documents) against JSON.parse as the
// oracle, and JWK Set documents: typed refusals only, no duplicates, bounded output, depth bounded early.
import { generateKeyPairSync } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseJWKSDocument } from '../../src/jwks/jwks-document.js'
import { JWKSError } from '../../src/jwks/jwks-error.js'
import { type JsonValue, parseStrictJson } from '../../src/jwks/strict-json.js'
import { anyText, linearIn, nearValid, outcome, RUNS, settled } from './support.js'

const DEPTH = 32

/** Nodes plus string lengths (member names included): what a parse result costs to hold. */
function weight(value: JsonValue): number {
  if (typeof value === 'string') return 1 + value.length
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + weight(item), 1)
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).reduce((sum, [name, item]) => sum + name.length + weight(item), 1)
  }
  return 1
}

function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + value.reduce<number>((max, item) => Math.max(max, depthOf(item)), 0)
  if (value !== null && typeof value === 'object') {
    return 1 + Object.values(value).reduce<number>((max, item) => Math.max(max, depthOf(item)), 0)
  }
  return 0
}

/** The strict parse, requiring a typed `json.*` refusal when it refuses. */
function strict(text: string, depth = DEPTH): JsonValue | undefined {
  const result = outcome(() => parseStrictJson(text, depth))
  if (result.ok) return result.value
  expect(result.error.code).toMatch(/^json\.(malformed|duplicate_member|too_deep)$/)
  return undefined
}

/** Whatever the strict parser accepts, JSON.parse accepts too, with the same value; output is bounded. */
function agreesWithJsonParse(text: string): void {
  const value = strict(text)
  if (value === undefined) return
  expect(JSON.stringify(value)).toBe(JSON.stringify(JSON.parse(text)))
  expect(weight(value)).toBeLessThanOrEqual(text.length)
}

/** A JSON text with one member name repeated in some object, built by hand so JSON.stringify cannot dedupe. */
const withDuplicate = fc
  .tuple(
    fc.string({ maxLength: 8 }),
    fc.jsonValue({ maxDepth: 2 }),
    fc.jsonValue({ maxDepth: 2 }),
    fc.jsonValue({ maxDepth: 2 }),
  )
  .map(([name, first, second, around]) => {
    const key = JSON.stringify(name)
    const object = `{${key}:${JSON.stringify(first)},"other":1,${key}:${JSON.stringify(second)}}`
    return `{"wrap":[${JSON.stringify(around)},${object}]}`
  })

describe('parseStrictJson under fuzzing', () => {
  it('accepts every JSON.stringify output within the depth bound, with the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value)
        const parsed = strict(text)
        expect(parsed).toBeDefined()
        expect(JSON.stringify(parsed)).toBe(text)
      }),
      { numRuns: RUNS.structured },
    )
  })

  it('never accepts what JSON.parse rejects, and agrees on value for arbitrary text', () => {
    fc.assert(fc.property(anyText(80), agreesWithJsonParse), { numRuns: RUNS.pure })
  })

  it('agrees with JSON.parse on mutated JSON texts (unicode escapes, numbers, truncations, added members)', () => {
    const tokens = [
      '"',
      '\\',
      '\\u',
      '\\ud800',
      ',',
      ':',
      '{',
      '}',
      '[',
      ']',
      '1e999',
      '-0',
      '01',
      'nul',
      '"__proto__":1',
    ]
    fc.assert(
      fc.property(
        nearValid(
          fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
          tokens,
        ),
        agreesWithJsonParse,
      ),
      { numRuns: RUNS.pure },
    )
  })

  it('refuses every duplicate member, however deep', () => {
    fc.assert(
      fc.property(withDuplicate, (text) => {
        const result = outcome(() => parseStrictJson(text, DEPTH))
        expect(result.ok).toBe(false)
        if (!result.ok) expect(result.error.code).toBe('json.duplicate_member')
      }),
      { numRuns: RUNS.structured },
    )
  })

  it('refuses nesting past maxDepth with json.too_deep and accepts it up to the bound', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 48 }), fc.boolean(), (levels, objects) => {
        const open = objects ? '{"a":' : '['
        const close = objects ? '}' : ']'
        const text = `${open.repeat(levels)}0${close.repeat(levels)}`
        const result = outcome(() => parseStrictJson(text, DEPTH))
        if (levels <= DEPTH) expect(result.ok && depthOf(result.value) === levels).toBe(true)
        else expect(!result.ok && result.error.code === 'json.too_deep').toBe(true)
      }),
      { numRuns: RUNS.structured },
    )
  })

  it('refuses megabyte nesting early, without exhausting the stack', () => {
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`
    const result = linearIn(deep, () => outcome(() => parseStrictJson(deep, 64)))
    expect(!result.ok && result.error.code === 'json.too_deep').toBe(true)
    const wide = `[${'0,'.repeat(500_000)}0]`
    const parsed = linearIn(wide, () => parseStrictJson(wide, 64))
    expect(Array.isArray(parsed) && parsed.length === 500_001).toBe(true)
  })

  it('keeps __proto__ as plain data', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 2 }), (value) => {
        const parsed = parseStrictJson(`{"__proto__":${JSON.stringify(value)}}`, DEPTH) as Record<
          string,
          unknown
        >
        expect(Object.getPrototypeOf(parsed)).toBeNull()
        expect(Object.hasOwn(parsed, '__proto__')).toBe(true)
        expect(({} as Record<string, unknown>).polluted).toBeUndefined()
      }),
      { numRuns: 100 },
    )
  })
})

describe('parseJWKSDocument under fuzzing', () => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' })
  const ed = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' })
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' })
  const limits = { maxBytes: 64 * 1024, maxKeys: 16 }

  const jwkArb = fc.record(
    {
      material: fc.constantFrom<Record<string, unknown>>(ec, ed, rsa),
      kid: fc.oneof(fc.constantFrom('k1', 'k2', 'k3'), anyText(6)),
      alg: fc.constantFrom(undefined, 'ES256', 'EdDSA', 'RS256', 'PS256', 'HS256', 'none'),
      use: fc.constantFrom(undefined, 'sig', 'enc'),
      extra: fc.constantFrom<Record<string, unknown>>(
        {},
        { d: 'AAAA' },
        { k: 'AAAA' },
        { key_ops: ['verify'] },
        { key_ops: 'verify' },
      ),
    },
    { requiredKeys: ['material', 'kid'] },
  )
  const documentArb = fc.array(jwkArb, { maxLength: 6 }).map((entries) =>
    JSON.stringify({
      keys: entries.map(({ material, kid, alg, use, extra }) => ({
        ...material,
        kid,
        ...(alg === undefined ? {} : { alg }),
        ...(use === undefined ? {} : { use }),
        ...extra,
      })),
    }),
  )

  async function parse(body: string) {
    const result = await settled(() => parseJWKSDocument(body, limits))
    if (!result.ok) {
      expect(result.error).toBeInstanceOf(JWKSError)
      expect(result.error.code).toMatch(/^jwks\.document_(invalid|too_large)$/)
      return undefined
    }
    return result.value
  }

  it('answers arbitrary and mutated documents with a bounded key set or a JWKSError, nothing else', async () => {
    const body = fc.oneof(
      anyText(100),
      nearValid(documentArb, ['"kid":"k1",', '"keys":', '{', ']', '"d":"x",']),
    )
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const keys = await parse(text)
        if (keys === undefined) return
        const document = JSON.parse(text) as { keys: Array<Record<string, unknown>> }
        expect(keys.size).toBeLessThanOrEqual(2 * document.keys.length)
        for (const key of keys.values()) {
          expect(document.keys.some((entry) => entry.kid === key.verification.kid)).toBe(true)
          expect(['ES256', 'EdDSA', 'RS256', 'PS256']).toContain(key.verification.alg)
        }
      }),
      { numRuns: RUNS.crypto },
    )
  })

  it('refuses private material and a repeated (kid, alg) instead of picking one', async () => {
    await fc.assert(
      fc.asyncProperty(documentArb, async (text) => {
        const entries = (JSON.parse(text) as { keys: Array<Record<string, unknown>> }).keys
        const keys = await parse(text)
        const hasPrivate = entries.some((entry) => ['d', 'k'].some((member) => Object.hasOwn(entry, member)))
        if (hasPrivate) expect(keys).toBeUndefined()
        if (keys === undefined) return
        const pairs = new Set<string>()
        for (const key of keys.values()) {
          const pair = `${key.verification.kid}\u0000${key.verification.alg}`
          expect(pairs.has(pair)).toBe(false)
          pairs.add(pair)
        }
      }),
      { numRuns: RUNS.crypto },
    )
  })

  it('refuses oversized and duplicate-member documents early', async () => {
    const oversized = JSON.stringify({ keys: [], padding: 'x'.repeat(limits.maxBytes) })
    expect(await parse(oversized)).toBeUndefined()
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('"kid"', '"kty"', '"keys"', '"x"'), async (member) => {
        const body = JSON.stringify({ keys: [{ ...ec, kid: 'k1' }] }).replace(
          member,
          `${member}:"dup",${member}`,
        )
        expect(await parse(body)).toBeUndefined()
      }),
      { numRuns: 20 },
    )
  })
})
