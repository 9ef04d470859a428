export type { ComparisonResult, HttpCase, Measurement, OpsCase } from './compare.js'
export { compareHttp, compareOps, comparisons, finish } from './compare.js'
export type { ListeningServer } from './listen.js'
export { listen } from './listen.js'
