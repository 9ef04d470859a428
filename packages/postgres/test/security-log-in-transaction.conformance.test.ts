import { securityLogInTransactionSuite } from '@portcullis/conformance/security-log'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll } from 'vitest'
import {
  PostgresAccountStore,
  PostgresApiKeyStore,
  PostgresOAuthServerStore,
  PostgresSecurityLog,
} from '../src/index.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())

describeConformance(
  securityLogInTransactionSuite(() => ({
    log: new PostgresSecurityLog({ client: db.client }),
    accounts: new PostgresAccountStore({ client: db.client }),
    apiKeys: new PostgresApiKeyStore({ client: db.client }),
    grants: new PostgresOAuthServerStore({ client: db.client }),
  })),
)
