// Running the protector conformance kit against the custom protector: one vitest test per invariant.
// The factory returns a fresh subject each time: the protector after a rotation (v2 active, v1 retained),
// the same implementation before it (v1 active), and an impostor with other key material labelled v2.
import { oauthTransactionProtectorSuite } from '@portcullis/conformance/protection'
import { describeConformance } from '@portcullis/conformance/vitest'
import { KmsProtector } from './custom-protector.js'
import { testKms } from './test-kms.js' // your KMS emulator or a test project

// #region conformance-kit-for-your-own-protector-o
describeConformance(
  oauthTransactionProtectorSuite(() => {
    const kms = testKms()
    return {
      protector: new KmsProtector(
        kms,
        new Map([
          ['v2', 'keys/oauth-v2'],
          ['v1', 'keys/oauth-v1'],
        ]),
      ),
      previous: new KmsProtector(kms, new Map([['v1', 'keys/oauth-v1']])),
      impostor: new KmsProtector(kms, new Map([['v2', 'keys/other-v2']])),
    }
  }, 'KmsProtector'),
)
// #endregion conformance-kit-for-your-own-protector-o
