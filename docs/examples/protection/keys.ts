// Loading protector keys from the environment (or a mounted secret) and building the key ring.
// Generate material once per key with:
//   node -e "console.log(require('node:crypto').randomBytes(32).toString('base64url'))"
// and store it in your secret manager; never commit it, not even for tests.
import {
  AESGCMOAuthTransactionProtector,
  loadOAuthTransactionProtectorKey,
} from '@portcullis/core/protection'

// The active key seals every new envelope.
const active = loadOAuthTransactionProtectorKey({
  version: process.env.PORTCULLIS_PROTECTOR_KEY_VERSION ?? '2031-03',
  material: process.env.PORTCULLIS_PROTECTOR_KEY,
  encoding: 'base64url',
})

// During a rotation the previous key stays here until nothing sealed under it is left.
const retained =
  process.env.PORTCULLIS_PROTECTOR_PREVIOUS_KEY === undefined
    ? []
    : [
        loadOAuthTransactionProtectorKey({
          version: process.env.PORTCULLIS_PROTECTOR_PREVIOUS_KEY_VERSION ?? '2030-09',
          material: process.env.PORTCULLIS_PROTECTOR_PREVIOUS_KEY,
          encoding: 'base64url',
        }),
      ]

export const protector = new AESGCMOAuthTransactionProtector({ activeKey: active, retainedKeys: retained })

// Safe to log: key versions only, the material is never shown.
console.log(protector) // AESGCMOAuthTransactionProtector { activeKeyVersion: "2031-03", keyVersions: [...] }
