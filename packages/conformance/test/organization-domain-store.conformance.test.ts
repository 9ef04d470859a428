import { describeConformance } from '../src/bindings/vitest.js'
import { organizationDomainStoreSuite } from '../src/organization-domains/index.js'
import { memoryDomainFixture } from './support/broken-domain-stores.js'

describeConformance(organizationDomainStoreSuite(memoryDomainFixture))
