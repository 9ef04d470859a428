import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryApiKeyStore } from '@portcullis/core/api-keys'
import { MemoryOAuthServerStore } from '@portcullis/core/authorization-server'
import { MemorySecurityLog } from '@portcullis/core/security-log'
import { describeConformance } from '../bindings/vitest.js'
import { securityLogInTransactionSuite } from './index.js'

describeConformance(
  securityLogInTransactionSuite(() => {
    const log = new MemorySecurityLog()
    const accounts = new MemoryAccountStore({ securityLog: log })
    return {
      log,
      accounts,
      apiKeys: new MemoryApiKeyStore({ securityLog: log }),
      grants: new MemoryOAuthServerStore({ accounts, securityLog: log }),
    }
  }),
)
