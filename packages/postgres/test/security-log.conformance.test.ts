import { securityLogSuite } from '@portcullis/conformance/security-log'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll } from 'vitest'
import { PostgresSecurityLog } from '../src/security-log/store.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())
// Two instances: each its own pool on one database.
const other = db.connect(4)

describeConformance(
  securityLogSuite(() => ({
    log: new PostgresSecurityLog({ client: db.client }),
    peer: new PostgresSecurityLog({ client: other }),
  })),
)
