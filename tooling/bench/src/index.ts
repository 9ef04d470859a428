export type {
  AdapterName,
  CredentialRoute,
  HeaderMiddlewareTargets,
  SdkReadTargets,
} from './adapter-budgets.js'
export {
  ADAPTERS,
  adapterBudgetId,
  benchPartRuns,
  compareWithHeaderMiddleware,
  compareWithSdkServers,
} from './adapter-budgets.js'
export type { Budget } from './budgets.js'
export { BUDGETS, PEERS_NOT_MEASURED } from './budgets.js'
export type { ComparisonResult, Measurement, OpsCase } from './compare.js'
export { compareHttp, compareOps, comparisons, finish, recordComparison, reportTable } from './compare.js'
export { HELMET_SAME_HEADERS, SECURE_HEADERS_SAME_HEADERS } from './header-middleware.js'
export { answeredHeaders, assertSameHeaders, headerDifferences } from './header-parity.js'
export type { HttpCase } from './http-load.js'
export type { ListeningServer } from './listen.js'
export { listen } from './listen.js'
export { assertReadAnswers, legacyRead, statelessRead } from './mcp-reads.js'
export type { CostPart } from './part-costs.js'
export { reportPartCosts } from './part-costs.js'
