// Protector seal+open vs raw node:crypto AES-256-GCM on the same payload and associated data.
// Budget (DESIGN section 5): the protector keeps >= 1.0x the raw throughput.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { compareOps, finish } from '@portcullis/bench'
import {
  AESGCMOAuthTransactionProtector,
  associatedData,
  OAuthTransactionProtectorKey,
} from '@portcullis/core/protection'

const material = randomBytes(32)
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('bench', material),
  retainedKeys: [new OAuthTransactionProtectorKey('bench-old', randomBytes(32))],
})
const aad = associatedData(
  'portcullis.oauth.transaction.pkce-verifier.v1',
  randomBytes(32),
  randomBytes(32),
  'acme',
)

/** The baseline: what a hand-rolled AES-256-GCM seal and open costs, with no checks or key ring. */
function rawSealOpen(plaintext: Uint8Array): Uint8Array {
  const nonce = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', material, nonce)
  cipher.setAAD(aad)
  const sealed = Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()])
  const decipher = createDecipheriv('aes-256-gcm', material, sealed.subarray(0, 12))
  decipher.setAAD(aad)
  decipher.setAuthTag(sealed.subarray(sealed.length - 16))
  return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()])
}

async function protectorSealOpen(plaintext: Uint8Array): Promise<Uint8Array> {
  return protector.unprotect(await protector.protect(plaintext, aad), aad)
}

for (const [label, size] of [
  ['PKCE verifier, 43 B', 43],
  ['provider token, 2 KiB', 2048],
] as const) {
  const payload = randomBytes(size)
  const check = await protectorSealOpen(payload)
  if (!Buffer.from(check).equals(payload) || !Buffer.from(rawSealOpen(payload)).equals(payload)) {
    throw new Error('round trip failed')
  }
  await compareOps({
    id: 'protector',
    title: `protector seal+open (${label})`,
    budget: 1.0,
    baseline: { name: 'node:crypto aes-256-gcm', fn: () => rawSealOpen(payload) },
    candidate: { name: 'AESGCMOAuthTransactionProtector', fn: () => protectorSealOpen(payload) },
  })
}

finish()
