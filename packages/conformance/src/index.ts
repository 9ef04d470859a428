export type { CaseResult, Check, ConformanceCase, ConformanceSuite } from './suite/suite.js'
export {
  assertSuite,
  ConformanceViolation,
  checkFor,
  conformanceCase,
  registerSuite,
  runCase,
  runSuite,
} from './suite/suite.js'
