import { createDecipheriv, randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ConfigurationError, InvalidInputError } from '../errors/portcullis-error.js'
import {
  AES_GCM_NONCE_BYTES,
  AES_GCM_TAG_BYTES,
  AESGCMOAuthTransactionProtector,
  MAX_PLAINTEXT_BYTES,
  ProtectorEntropyError,
} from './aes-gcm-protector.js'
import { associatedData } from './associated-data.js'
import { OAuthTransactionProtectorKey } from './key.js'
import { type ProtectedEnvelope, ProtectedEnvelopeError } from './protector.js'

const utf8 = (text: string) => new TextEncoder().encode(text)
const newKey = (version: string, material: Uint8Array = randomBytes(32)) =>
  new OAuthTransactionProtectorKey(version, material)
const aad = associatedData('oauth.transaction.pkce-verifier.v1', 'tx-1')

async function rejection(promise: Promise<unknown>): Promise<ProtectedEnvelopeError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the envelope to be rejected')
    },
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(ProtectedEnvelopeError)
  expect((error as ProtectedEnvelopeError).code).toBe('protection.envelope_rejected')
  expect((error as ProtectedEnvelopeError).message).toBe('protected envelope could not be opened')
  return error as ProtectedEnvelopeError
}

describe('AESGCMOAuthTransactionProtector', () => {
  it('round-trips under the active key with a nonce || ciphertext || tag layout', async () => {
    const protector = new AESGCMOAuthTransactionProtector({
      activeKey: newKey('v2'),
      retainedKeys: [newKey('v1')],
    })
    for (const size of [0, 1, 43, 4096, MAX_PLAINTEXT_BYTES]) {
      const plaintext = randomBytes(size)
      const envelope = await protector.protect(plaintext, aad)
      expect(envelope.keyVersion).toBe('v2')
      expect(envelope.ciphertext.byteLength).toBe(AES_GCM_NONCE_BYTES + size + AES_GCM_TAG_BYTES)
      expect(Buffer.from(await protector.unprotect(envelope, aad)).equals(plaintext)).toBe(true)
    }
    expect(protector.activeKeyVersion).toBe('v2')
    expect(protector.keyVersions).toEqual(['v2', 'v1'])
  })

  it('authenticates the key version: the GCM AAD is associatedData(purpose, version, caller AAD)', async () => {
    const material = randomBytes(32)
    const protector = new AESGCMOAuthTransactionProtector({ activeKey: newKey('k7', material) })
    const envelope = await protector.protect(utf8('verifier'), aad)
    const open = (gcmAad: Uint8Array) => {
      const nonce = envelope.ciphertext.subarray(0, 12)
      const tagStart = envelope.ciphertext.byteLength - 16
      const decipher = createDecipheriv('aes-256-gcm', material, nonce)
      decipher.setAAD(gcmAad)
      decipher.setAuthTag(envelope.ciphertext.subarray(tagStart))
      return Buffer.concat([decipher.update(envelope.ciphertext.subarray(12, tagStart)), decipher.final()])
    }
    expect(open(associatedData('portcullis.protector.aes-256-gcm.v1', 'k7', aad)).toString()).toBe('verifier')
    expect(() => open(aad)).toThrow()
    expect(() => open(associatedData('portcullis.protector.aes-256-gcm.v1', 'k8', aad))).toThrow()
  })

  it('uses a fresh nonce for every envelope', async () => {
    const protector = new AESGCMOAuthTransactionProtector({ activeKey: newKey('v1') })
    const envelopes = await Promise.all(
      Array.from({ length: 500 }, () => protector.protect(utf8('same'), aad)),
    )
    const nonces = new Set(envelopes.map((e) => Buffer.from(e.ciphertext.subarray(0, 12)).toString('hex')))
    expect(nonces.size).toBe(500)
  })

  it('binds the caller associated data', async () => {
    const protector = new AESGCMOAuthTransactionProtector({ activeKey: newKey('v1') })
    const envelope = await protector.protect(utf8('nonce-value'), aad)
    await rejection(protector.unprotect(envelope, associatedData('oauth.transaction.nonce.v1', 'tx-1')))
    await rejection(
      protector.unprotect(envelope, associatedData('oauth.transaction.pkce-verifier.v1', 'tx-2')),
    )
    await rejection(protector.unprotect(envelope, aad.subarray(0, aad.byteLength - 1)))
    await rejection(protector.unprotect(envelope, new Uint8Array(0)))
  })

  it('rejects relabelled, unknown, truncated, extended, oversized and malformed envelopes with one error', async () => {
    const protector = new AESGCMOAuthTransactionProtector({
      activeKey: newKey('v2'),
      retainedKeys: [newKey('v1')],
    })
    const envelope = await protector.protect(utf8('secret'), aad)
    const bad: unknown[] = [
      { keyVersion: 'v1', ciphertext: envelope.ciphertext },
      { keyVersion: 'v3', ciphertext: envelope.ciphertext },
      { keyVersion: '', ciphertext: envelope.ciphertext },
      { keyVersion: 'v2', ciphertext: envelope.ciphertext.subarray(0, 27) },
      { keyVersion: 'v2', ciphertext: envelope.ciphertext.subarray(0, envelope.ciphertext.byteLength - 1) },
      { keyVersion: 'v2', ciphertext: new Uint8Array([...envelope.ciphertext, 0]) },
      { keyVersion: 'v2', ciphertext: new Uint8Array(MAX_PLAINTEXT_BYTES + 29) },
      { keyVersion: 'v2', ciphertext: Buffer.from(envelope.ciphertext).toString('base64') },
      { keyVersion: 2, ciphertext: envelope.ciphertext },
      { keyVersion: 'v2' },
      null,
      undefined,
      'pe1.v2.AAAA',
    ]
    for (const candidate of bad) await rejection(protector.unprotect(candidate as ProtectedEnvelope, aad))
    await rejection(protector.unprotect(envelope, 'not bytes' as unknown as Uint8Array))
  })

  it('rejects every single-bit flip of the envelope', async () => {
    const protector = new AESGCMOAuthTransactionProtector({ activeKey: newKey('v1') })
    const envelope = await protector.protect(utf8('abc'), aad)
    for (let bit = 0; bit < envelope.ciphertext.byteLength * 8; bit++) {
      const tampered = new Uint8Array(envelope.ciphertext)
      tampered[bit >> 3] = (tampered[bit >> 3] ?? 0) ^ (1 << (bit & 7))
      await rejection(protector.unprotect({ keyVersion: 'v1', ciphertext: tampered }, aad))
    }
  })

  it('opens retained-key envelopes, seals only under the active key, and rejects a foreign key', async () => {
    const v1 = newKey('v1')
    const before = new AESGCMOAuthTransactionProtector({ activeKey: v1 })
    const after = new AESGCMOAuthTransactionProtector({ activeKey: newKey('v2'), retainedKeys: [v1] })
    const old = await before.protect(utf8('old token'), aad)
    expect(new TextDecoder().decode(await after.unprotect(old, aad))).toBe('old token')
    const fresh = await after.protect(utf8('new token'), aad)
    expect(fresh.keyVersion).toBe('v2')
    await rejection(before.unprotect(fresh, aad))
    const impostor = new AESGCMOAuthTransactionProtector({ activeKey: newKey('v2') })
    await rejection(impostor.unprotect(fresh, aad))
  })

  it('reprotect moves an envelope to the active key so the retained key can be dropped', async () => {
    const v1 = newKey('v1')
    const v2 = newKey('v2')
    const before = new AESGCMOAuthTransactionProtector({ activeKey: v1 })
    const rotating = new AESGCMOAuthTransactionProtector({ activeKey: v2, retainedKeys: [v1] })
    const old = await before.protect(utf8('refresh token'), aad)
    expect(rotating.needsReprotect(old)).toBe(true)
    const moved = await rotating.reprotect(old, aad)
    expect(moved.keyVersion).toBe('v2')
    expect(rotating.needsReprotect(moved)).toBe(false)
    expect(await rotating.reprotect(moved, aad)).toBe(moved)
    const dropped = new AESGCMOAuthTransactionProtector({ activeKey: v2 })
    expect(new TextDecoder().decode(await dropped.unprotect(moved, aad))).toBe('refresh token')
    await rejection(dropped.unprotect(old, aad))
    await rejection(rotating.reprotect(old, associatedData('other')))
    await rejection(rotating.reprotect({ keyVersion: 'v1', ciphertext: new Uint8Array(40) }, aad))
  })

  it('refuses duplicate versions, reused material, missing or foreign keys at construction', () => {
    const material = randomBytes(32)
    const code = (run: () => unknown) => {
      try {
        run()
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigurationError)
        return (error as ConfigurationError).code
      }
      return 'accepted'
    }
    expect(
      code(
        () => new AESGCMOAuthTransactionProtector({ activeKey: newKey('v1'), retainedKeys: [newKey('v1')] }),
      ),
    ).toBe('protection.key_duplicate_version')
    expect(
      code(
        () =>
          new AESGCMOAuthTransactionProtector({
            activeKey: newKey('v2', material),
            retainedKeys: [newKey('v1', Buffer.from(material))],
          }),
      ),
    ).toBe('protection.key_reused')
    const missing = {} as unknown as ConstructorParameters<typeof AESGCMOAuthTransactionProtector>[0]
    expect(code(() => new AESGCMOAuthTransactionProtector(missing))).toBe('protection.active_key_missing')
    const forged = { version: 'v1', keyMaterial: material } as unknown as OAuthTransactionProtectorKey
    expect(code(() => new AESGCMOAuthTransactionProtector({ activeKey: forged }))).toBe(
      'protection.key_invalid',
    )
    const notArray = { activeKey: newKey('v1'), retainedKeys: 'v0' } as unknown as ConstructorParameters<
      typeof AESGCMOAuthTransactionProtector
    >[0]
    expect(code(() => new AESGCMOAuthTransactionProtector(notArray))).toBe('protection.retained_keys_invalid')
  })

  it('refuses bad plaintext and associated data with typed input errors', async () => {
    const protector = new AESGCMOAuthTransactionProtector({ activeKey: newKey('v1') })
    const cases: Array<[unknown, unknown, string]> = [
      ['text', aad, 'protection.plaintext_invalid'],
      [new Uint8Array(MAX_PLAINTEXT_BYTES + 1), aad, 'protection.plaintext_too_large'],
      [utf8('x'), new Uint8Array(0), 'protection.associated_data_invalid'],
      [utf8('x'), 'aad', 'protection.associated_data_invalid'],
      [utf8('x'), new Uint8Array(16 * 1024 + 1), 'protection.associated_data_too_large'],
    ]
    for (const [plaintext, data, expected] of cases) {
      await expect(protector.protect(plaintext as Uint8Array, data as Uint8Array)).rejects.toSatisfy(
        (error) => error instanceof InvalidInputError && error.code === expected,
      )
    }
  })

  it('turns broken randomness into a typed unavailable error', async () => {
    const sources: Array<(size: number) => Uint8Array> = [
      () => {
        throw new Error('entropy pool exhausted')
      },
      () => new Uint8Array(11),
      () => 'x'.repeat(12) as unknown as Uint8Array,
    ]
    for (const randomBytes of sources) {
      const protector = new AESGCMOAuthTransactionProtector({ activeKey: newKey('v1'), randomBytes })
      await expect(protector.protect(utf8('x'), aad)).rejects.toSatisfy(
        (error) =>
          error instanceof ProtectorEntropyError &&
          error.errorClass === 'unavailable' &&
          !error.message.includes('exhausted'),
      )
    }
  })

  it('does not reveal key material or plaintext in inspect, JSON or errors', async () => {
    const material = randomBytes(32)
    const protector = new AESGCMOAuthTransactionProtector({ activeKey: newKey('v1', material) })
    const envelope = await protector.protect(utf8('super-secret-verifier'), aad)
    const error = await rejection(protector.unprotect(envelope, associatedData('other')))
    const forms = [inspect(protector), JSON.stringify(protector), inspect(error), JSON.stringify(error)]
    for (const form of forms) {
      expect(form).not.toContain(material.toString('hex').slice(0, 12))
      expect(form).not.toContain(material.toString('base64').slice(0, 12))
      expect(form).not.toContain('super-secret-verifier')
    }
    expect(inspect(protector)).toContain('"v1"')
  })
})
