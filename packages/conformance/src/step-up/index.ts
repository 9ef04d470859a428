export type { StepUpStoreFactory, StepUpStoreFixture } from './fixture.js'
export { assertStepUpStoreConformance, stepUpStoreSuite } from './suite.js'
