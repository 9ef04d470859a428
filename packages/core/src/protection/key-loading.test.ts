import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { AESGCMOAuthTransactionProtector } from './aes-gcm-protector.js'
import { associatedData } from './associated-data.js'
import { type KeyMaterialEncoding, loadOAuthTransactionProtectorKey } from './key-loading.js'

function failure(material: string | undefined, encoding: KeyMaterialEncoding): ConfigurationError {
  try {
    loadOAuthTransactionProtectorKey({ version: 'v1', material, encoding })
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError)
    const typed = error as ConfigurationError
    if (material !== undefined && material.trim().length > 4)
      expect(typed.message).not.toContain(material.trim())
    return typed
  }
  throw new Error('expected the key to be refused')
}

describe('loadOAuthTransactionProtectorKey', () => {
  it('loads the same key from base64, base64url and hex', async () => {
    const material = randomBytes(32)
    const aad = associatedData('test')
    const plaintext = new TextEncoder().encode('provider token')
    const forms: Array<[string, KeyMaterialEncoding]> = [
      [material.toString('base64'), 'base64'],
      [material.toString('base64').replace(/=+$/, ''), 'base64'],
      [material.toString('base64url'), 'base64url'],
      [`${material.toString('base64url')}=`, 'base64url'],
      [material.toString('hex'), 'hex'],
      [material.toString('hex').toUpperCase(), 'hex'],
      [`  ${material.toString('hex')}\n`, 'hex'],
    ]
    const [first, ...rest] = forms.map(
      ([text, encoding]) =>
        new AESGCMOAuthTransactionProtector({
          activeKey: loadOAuthTransactionProtectorKey({ version: 'v1', material: text, encoding }),
        }),
    )
    if (first === undefined) throw new Error('no protector')
    const envelope = await first.protect(plaintext, aad)
    for (const protector of rest) expect(await protector.unprotect(envelope, aad)).toEqual(plaintext)
  })

  it('never accepts a short or long key in any encoding', () => {
    for (const size of [16, 31, 33, 48]) {
      const material = randomBytes(size)
      for (const encoding of ['base64', 'base64url', 'hex'] as const) {
        expect(failure(material.toString(encoding), encoding).code).toBe('protection.key_length')
      }
    }
  })

  it('refuses missing material and names only the version', () => {
    for (const material of [undefined, '', '   \n']) {
      const error = failure(material, 'base64')
      expect(error.code).toBe('protection.key_missing')
      expect(error.message).toContain('v1')
    }
  })

  it('decodes strictly: wrong alphabet, odd hex, bad padding and non-canonical bits are refused', () => {
    const material = randomBytes(32)
    const base64 = material.toString('base64')
    const cases: Array<[string, KeyMaterialEncoding]> = [
      [`-${base64.slice(1)}`, 'base64'],
      [`_${base64.slice(1)}`, 'base64'],
      [`+${material.toString('base64url').slice(1)}`, 'base64url'],
      [`/${material.toString('base64url').slice(1)}`, 'base64url'],
      [material.toString('hex').slice(1), 'hex'],
      [`${material.toString('hex').slice(2)}zz`, 'hex'],
      [`${base64.slice(0, 10)} ${base64.slice(10)}`, 'base64'],
      [`${base64.slice(0, 10)}=${base64.slice(10)}`, 'base64'],
      [`${base64}=`, 'base64'],
      // 43 characters whose last one carries non-zero padding bits
      [`${material.toString('base64url').slice(0, 42)}B`, 'base64url'],
      [`${base64.slice(0, 42)}B=`, 'base64'],
    ]
    for (const [text, encoding] of cases) expect(failure(text, encoding).code).toBe('protection.key_encoding')
  })

  it('refuses an unknown encoding name', () => {
    const text = randomBytes(32).toString('hex')
    expect(failure(text, 'latin1' as KeyMaterialEncoding).code).toBe('protection.key_encoding')
  })
})
