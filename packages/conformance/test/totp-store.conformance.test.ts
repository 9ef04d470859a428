import { describeConformance } from '../src/bindings/vitest.js'
import { totpResealingSuite, totpStoreSuite } from '../src/totp/index.js'
import { memoryResealingFixture, memoryTotpFixture } from './support/broken-totp-stores.js'

describeConformance(totpStoreSuite(memoryTotpFixture))
describeConformance(totpResealingSuite(memoryResealingFixture))
