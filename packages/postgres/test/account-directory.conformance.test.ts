import { accountDirectorySuite } from '@portcullis/conformance/accounts'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll } from 'vitest'
import { PostgresAccountStore } from '../src/index.js'
import { migratedDatabase } from './support/database.js'

// Searching accounts (the AccountDirectory port) over the account, password and address tables; every
// case uses fresh names, so the cases share one database.
const db = await migratedDatabase()
afterAll(() => db.close())

describeConformance(
  accountDirectorySuite(() => {
    const store = new PostgresAccountStore({ client: db.client })
    return { store, directory: store }
  }),
)
