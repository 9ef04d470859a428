import { describeConformance } from '../src/bindings/vitest.js'
import { oauthAccountStoreSuite } from '../src/oauth/index.js'
import { memoryFixture } from './support/memory-fixtures.js'

describeConformance(oauthAccountStoreSuite(() => memoryFixture()))
