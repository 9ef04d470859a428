export type { SecurityLogFactory, SecurityLogFixture } from './fixture.js'
export { assertSecurityLogConformance, securityLogSuite } from './suite.js'
