import { describeConformance } from '../src/bindings/vitest.js'
import { totpStoreSuite } from '../src/totp/index.js'
import { memoryTotpFixture } from './support/broken-totp-stores.js'

describeConformance(totpStoreSuite(memoryTotpFixture))
