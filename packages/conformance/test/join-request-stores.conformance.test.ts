import { describeConformance } from '../src/bindings/vitest.js'
import { joinRequestStoresSuite } from '../src/organizations/index.js'
import { memoryJoinRequestFixture } from './support/broken-join-request-stores.js'

describeConformance(joinRequestStoresSuite(memoryJoinRequestFixture()))
