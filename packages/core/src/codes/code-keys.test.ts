import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { CodeKeyRing, codeCandidates, codeDigestMatches, digestCode, loadCodeKey } from './code-keys.js'
import { generateFlowId } from './generate.js'

const secret = (fill: number) => new Uint8Array(32).fill(fill)
const keyA = { version: 1, secret: secret(1) }
const keyB = { version: 2, secret: secret(2) }
const input = { id: generateFlowId(), purpose: 'password-reset' as const, code: '123456' }

function codeOf(error: unknown): string | undefined {
  return (error as { code?: string }).code
}

function thrown(run: () => unknown): string | undefined {
  try {
    run()
  } catch (error) {
    return codeOf(error)
  }
  return undefined
}

describe('code digests', () => {
  it('are HMAC-SHA256 over purpose, id and code, and change when any of them or the key changes', () => {
    const base = digestCode(keyA, input)
    expect(base).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(digestCode(keyA, input)).toBe(base)
    expect(digestCode(keyB, input)).not.toBe(base)
    expect(digestCode(keyA, { ...input, code: '123457' })).not.toBe(base)
    expect(digestCode(keyA, { ...input, purpose: 'sign-in' })).not.toBe(base)
    expect(digestCode(keyA, { ...input, id: generateFlowId() })).not.toBe(base)
  })

  it('cannot be confused by moving text between fields (the separator is a NUL a code may not hold)', () => {
    expect(thrown(() => digestCode(keyA, { ...input, code: 'a\u0000b' }))).toBe('codes.invalid_input')
  })

  it('refuse a malformed id, purpose or code as typed input errors', () => {
    expect(thrown(() => digestCode(keyA, { ...input, id: 'short' }))).toBe('codes.invalid_input')
    expect(thrown(() => digestCode(keyA, { ...input, purpose: 'admin' as never }))).toBe(
      'codes.invalid_input',
    )
    expect(thrown(() => digestCode(keyA, { ...input, code: '' }))).toBe('codes.invalid_input')
    expect(thrown(() => digestCode(keyA, { ...input, code: 'x'.repeat(65) }))).toBe('codes.invalid_input')
  })
})

describe('CodeKeyRing', () => {
  it('issues under the active version and offers one candidate per version, active first', () => {
    const ring = new CodeKeyRing(keyB, [keyA])
    expect(ring.issueDigest(input)).toEqual({ keyVersion: 2, digest: digestCode(keyB, input) })
    expect(codeCandidates(ring, input)).toEqual([
      { keyVersion: 2, digest: digestCode(keyB, input) },
      { keyVersion: 1, digest: digestCode(keyA, input) },
    ])
  })

  it('matches a code digested under a retained version after rotation, and not once it is dropped', () => {
    const stored = new CodeKeyRing(keyA).issueDigest(input)
    expect(codeDigestMatches(stored, new CodeKeyRing(keyB, [keyA]).candidates(input))).toBe(true)
    expect(codeDigestMatches(stored, new CodeKeyRing(keyB).candidates(input))).toBe(false)
    const wrongCode = new CodeKeyRing(keyB, [keyA]).candidates({ ...input, code: '000000' })
    expect(codeDigestMatches(stored, wrongCode)).toBe(false)
  })

  it('does not accept the digest of another version held under the stored version number', () => {
    const stored = { keyVersion: 1, digest: digestCode(keyA, input) }
    expect(codeDigestMatches(stored, [{ keyVersion: 2, digest: stored.digest }])).toBe(false)
  })

  it('refuses short, duplicate or badly versioned keys at construction', () => {
    expect(thrown(() => new CodeKeyRing({ version: 1, secret: new Uint8Array(31) }))).toBe(
      'codes.invalid_key',
    )
    expect(thrown(() => new CodeKeyRing(keyA, [{ version: 1, secret: secret(9) }]))).toBe('codes.invalid_key')
    expect(thrown(() => new CodeKeyRing({ version: -1, secret: secret(1) }))).toBe('codes.invalid_key')
    expect(thrown(() => new CodeKeyRing({ version: 1.5, secret: secret(1) }))).toBe('codes.invalid_key')
  })

  it('never shows its secrets through inspect or JSON', () => {
    const ring = new CodeKeyRing({ version: 3, secret: new Uint8Array(32).fill(0xab) })
    const shown = `${inspect(ring, { showHidden: true, depth: 5 })} ${JSON.stringify(ring)}`
    expect(shown).toContain('activeVersion')
    expect(shown).not.toMatch(/ab|171|q6ur/i)
  })
})

describe('loadCodeKey', () => {
  const material = Buffer.alloc(32, 7)

  it('decodes base64, base64url and hex strictly and ignores surrounding whitespace', () => {
    for (const encoding of ['base64', 'base64url', 'hex'] as const) {
      const key = loadCodeKey({ version: 4, material: `${material.toString(encoding)}\n`, encoding })
      expect(key.version).toBe(4)
      expect(Buffer.from(key.secret).equals(material)).toBe(true)
    }
  })

  it('refuses missing, short or malformed material without echoing it', () => {
    const cases = [
      { version: 1, material: undefined, encoding: 'hex' as const },
      { version: 1, material: '  ', encoding: 'hex' as const },
      { version: 1, material: Buffer.alloc(31, 7).toString('hex'), encoding: 'hex' as const },
      { version: 1, material: `${material.toString('hex')}zz`, encoding: 'hex' as const },
      {
        version: 1,
        material: material.toString('base64url').replace(/.$/, '*'),
        encoding: 'base64url' as const,
      },
    ]
    for (const options of cases) {
      try {
        loadCodeKey(options)
        expect.fail('loaded a bad key')
      } catch (error) {
        expect(codeOf(error)).toBe('codes.invalid_key')
        if (options.material?.trim())
          expect(String((error as Error).message)).not.toContain(options.material.trim())
      }
    }
  })
})
