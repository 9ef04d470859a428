// A KMS emulator for tests: AES-256-GCM under a random key per key name, held in memory. Stands in for
// your provider's emulator or a test project.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { Kms } from './custom-protector.js'

export function testKms(): Kms {
  const keys = new Map<string, Buffer>()
  const keyOf = (name: string) => {
    let key = keys.get(name)
    if (key === undefined) {
      key = randomBytes(32)
      keys.set(name, key)
    }
    return key
  }
  return {
    async encrypt(keyName, plaintext, aad) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', keyOf(keyName), iv).setAAD(aad)
      const body = Buffer.concat([cipher.update(plaintext), cipher.final()])
      return Buffer.concat([iv, body, cipher.getAuthTag()])
    },
    async decrypt(keyName, ciphertext, aad) {
      if (ciphertext.length < 28) throw new Error('ciphertext too short')
      const decipher = createDecipheriv('aes-256-gcm', keyOf(keyName), ciphertext.subarray(0, 12))
      decipher.setAAD(aad).setAuthTag(ciphertext.subarray(ciphertext.length - 16))
      return Buffer.concat([
        decipher.update(ciphertext.subarray(12, ciphertext.length - 16)),
        decipher.final(),
      ])
    },
  }
}
