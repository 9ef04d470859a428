import { describeConformance } from '../src/bindings/vitest.js'
import { stepUpStoreSuite } from '../src/step-up/index.js'
import { memoryStepUpFixture } from './support/broken-step-up-stores.js'

describeConformance(stepUpStoreSuite(memoryStepUpFixture))
