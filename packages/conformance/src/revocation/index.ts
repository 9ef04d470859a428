export type { RevocationNoticesFactory, RevocationNoticesFixture } from './fixture.js'
export type { RevocationNoticesSuiteOptions } from './suite.js'
export { assertRevocationNoticesConformance, revocationNoticesSuite } from './suite.js'
