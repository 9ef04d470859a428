import { describeConformance } from '../src/bindings/vitest.js'
import { oneTimeCodeStoreSuite } from '../src/codes/index.js'
import { memoryCodeFixture } from './support/broken-code-stores.js'

describeConformance(oneTimeCodeStoreSuite(memoryCodeFixture))
