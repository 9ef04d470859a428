import { MemoryAccountStore } from '@portcullis/core/accounts'
import { accountDirectorySuite } from '../src/accounts/index.js'
import { describeConformance } from '../src/bindings/vitest.js'

// The memory account store is its own directory: searching scans its tables in the order the Postgres
// directory reads its indexes.
describeConformance(
  accountDirectorySuite(() => {
    const store = new MemoryAccountStore()
    return { store, directory: store }
  }),
)
