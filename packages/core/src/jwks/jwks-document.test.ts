import { generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { generateTestKey } from '../../test/support/jwt.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import { parseJWKSDocument, selectionId } from './jwks-document.js'

const limits = { maxBytes: 1024 * 1024, maxKeys: 128 }
const es = generateTestKey('ES256', 'es-1')
const rsa = generateTestKey('RS256', 'rs-1')
const ed = generateTestKey('EdDSA', 'ed-1')

async function rejection(body: string, custom = limits): Promise<string | undefined> {
  try {
    await parseJWKSDocument(body, custom)
    return undefined
  } catch (error) {
    return isPortcullisError(error) ? error.code : 'unexpected'
  }
}

describe('JWKS documents', () => {
  it('imports usable keys by (kid, alg)', async () => {
    const keys = await parseJWKSDocument(JSON.stringify({ keys: [es.jwk, rsa.jwk, ed.jwk] }), limits)
    expect([...keys.keys()].sort()).toEqual(
      [selectionId('es-1', 'ES256'), selectionId('rs-1', 'RS256'), selectionId('ed-1', 'EdDSA')].sort(),
    )
    const key = keys.get(selectionId('es-1', 'ES256'))?.verification
    expect(key?.key.type).toBe('public')
    expect(key?.key.extractable).toBe(false)
  })

  it('makes an RSA key without alg usable for RS256 and PS256, and an EC key only for ES256', async () => {
    const { alg: _rsaAlg, ...rsaNoAlg } = rsa.jwk
    const { alg: _esAlg, ...esNoAlg } = es.jwk
    const keys = await parseJWKSDocument(JSON.stringify({ keys: [rsaNoAlg, esNoAlg] }), limits)
    expect(keys.has(selectionId('rs-1', 'RS256'))).toBe(true)
    expect(keys.has(selectionId('rs-1', 'PS256'))).toBe(true)
    expect(keys.has(selectionId('es-1', 'ES256'))).toBe(true)
    expect(keys.size).toBe(3)
  })

  it('skips keys that can never verify here instead of failing the document', async () => {
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' })
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' })
    const document = {
      keys: [
        { ...es.jwk, kid: 'enc', use: 'enc' },
        { ...es.jwk, kid: 'ops', key_ops: ['encrypt'] },
        { ...rsa.jwk, kid: 'rs512', alg: 'RS512' },
        { ...es.jwk, kid: 'mislabelled', alg: 'RS256' },
        { ...weak, kid: 'weak', alg: 'RS256' },
        { ...p384, kid: 'p384', alg: 'ES256' },
        { ...es.jwk, kid: undefined },
        { ...es.jwk, kid: ' padded ' },
        { ...es.jwk, kid: 'bad-point', x: 'AAAA' },
        es.jwk,
      ],
    }
    const keys = await parseJWKSDocument(JSON.stringify(document), limits)
    expect([...keys.keys()]).toEqual([selectionId('es-1', 'ES256')])
  })

  it('refuses whole documents that are oversized, malformed or dangerous', async () => {
    const tooMany = { keys: Array.from({ length: 4 }, (_, index) => ({ ...es.jwk, kid: `k${index}` })) }
    expect(await rejection(JSON.stringify(tooMany), { maxBytes: limits.maxBytes, maxKeys: 3 })).toBe(
      'jwks.document_invalid',
    )
    expect(await rejection(JSON.stringify({ keys: [es.jwk] }), { maxBytes: 50, maxKeys: 128 })).toBe(
      'jwks.document_too_large',
    )
    expect(await rejection('{"keys":[],"keys":[]}')).toBe('jwks.document_invalid')
    expect(await rejection('not json')).toBe('jwks.document_invalid')
    expect(await rejection('{"keys":{}}')).toBe('jwks.document_invalid')
    expect(await rejection('[]')).toBe('jwks.document_invalid')
    expect(await rejection(JSON.stringify({ keys: [es.jwk, es.jwk] }))).toBe('jwks.document_invalid')
    const privateJwk = { ...es.privateKey.export({ format: 'jwk' }), kid: 'leak', alg: 'ES256' }
    expect(await rejection(JSON.stringify({ keys: [privateJwk] }))).toBe('jwks.document_invalid')
    expect(await rejection(JSON.stringify({ keys: [{ kty: 'oct', kid: 'h', k: 'c2VjcmV0' }] }))).toBe(
      'jwks.document_invalid',
    )
    expect(await rejection(JSON.stringify({ keys: ['string'] }))).toBe('jwks.document_invalid')
  })

  it('reuses imported keys whose public material did not change', async () => {
    const first = await parseJWKSDocument(JSON.stringify({ keys: [es.jwk, rsa.jwk] }), limits)
    const rotated = generateTestKey('ES256', 'es-1')
    const second = await parseJWKSDocument(JSON.stringify({ keys: [rotated.jwk, rsa.jwk] }), limits, first)
    expect(second.get(selectionId('rs-1', 'RS256'))).toBe(first.get(selectionId('rs-1', 'RS256')))
    expect(second.get(selectionId('es-1', 'ES256'))).not.toBe(first.get(selectionId('es-1', 'ES256')))
  })
})
