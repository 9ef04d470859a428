import { randomBytes } from 'node:crypto'
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { AESGCMOAuthTransactionProtector } from './aes-gcm-protector.js'
import { associatedData } from './associated-data.js'
import { OAuthTransactionProtectorKey } from './key.js'

function configurationCode(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError)
    return (error as ConfigurationError).code
  }
  throw new Error('expected a ConfigurationError')
}

describe('OAuthTransactionProtectorKey', () => {
  it('accepts a version label and exactly 32 bytes', () => {
    const key = new OAuthTransactionProtectorKey('2025-06.a:1_b', randomBytes(32))
    expect(key.version).toBe('2025-06.a:1_b')
    expect(Object.isFrozen(key)).toBe(true)
  })

  it('refuses every key length other than 32 bytes with a message naming the length', () => {
    for (const size of [0, 1, 16, 24, 31, 33, 64]) {
      expect(configurationCode(() => new OAuthTransactionProtectorKey('v1', randomBytes(size)))).toBe(
        'protection.key_length',
      )
    }
    expect(() => new OAuthTransactionProtectorKey('v1', randomBytes(31))).toThrow(
      /exactly 32 bytes \(got 31\)/,
    )
  })

  it('refuses material that is not bytes, and the all-zero key', () => {
    const notBytes = ['a'.repeat(32), Array.from({ length: 32 }, () => 1), null, undefined]
    for (const material of notBytes) {
      expect(
        configurationCode(() => new OAuthTransactionProtectorKey('v1', material as unknown as Uint8Array)),
      ).toBe('protection.key_material_invalid')
    }
    expect(configurationCode(() => new OAuthTransactionProtectorKey('v1', new Uint8Array(32)))).toBe(
      'protection.key_weak',
    )
  })

  it('refuses blank or unusable version labels', () => {
    for (const version of ['', '   ', '\t', 'v 1', 'v/1', 'ü', 'a'.repeat(65), 'v1\n', 7, null]) {
      expect(
        configurationCode(() => new OAuthTransactionProtectorKey(version as string, randomBytes(32))),
      ).toBe('protection.key_version_invalid')
    }
    expect(new OAuthTransactionProtectorKey('a'.repeat(64), randomBytes(32)).version).toHaveLength(64)
  })

  it('copies the material, so wiping the caller buffer does not change the key', async () => {
    const material = randomBytes(32)
    const key = new OAuthTransactionProtectorKey('v1', material)
    const protector = new AESGCMOAuthTransactionProtector({ activeKey: key })
    const aad = associatedData('test')
    const envelope = await protector.protect(new TextEncoder().encode('secret'), aad)
    const copy = new OAuthTransactionProtectorKey('v1', Buffer.from(material))
    material.fill(7)
    const reopened = new AESGCMOAuthTransactionProtector({ activeKey: copy })
    expect(new TextDecoder().decode(await reopened.unprotect(envelope, aad))).toBe('secret')
  })

  it('never shows the material in inspect, JSON or string form', () => {
    const material = randomBytes(32)
    const key = new OAuthTransactionProtectorKey('v9', material)
    const forms = [inspect(key), JSON.stringify(key), String(key), inspect({ nested: [key] }, { depth: 5 })]
    for (const form of forms) {
      expect(form).toContain('v9')
      for (const encoding of ['hex', 'base64', 'base64url'] as const) {
        expect(form).not.toContain(material.toString(encoding).slice(0, 16))
      }
    }
    expect(inspect(key)).toContain('[redacted]')
  })
})
