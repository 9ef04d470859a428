export type { SecurityLogFactory, SecurityLogFixture } from './fixture.js'
export type {
  SecurityLogInTransactionFactory,
  SecurityLogInTransactionFixture,
} from './in-transaction.js'
export {
  assertSecurityLogInTransactionConformance,
  securityLogInTransactionSuite,
} from './in-transaction.js'
export { assertSecurityLogConformance, securityLogSuite } from './suite.js'
