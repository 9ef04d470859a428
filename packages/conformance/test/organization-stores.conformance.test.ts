import { describeConformance } from '../src/bindings/vitest.js'
import { organizationStoresSuite } from '../src/organizations/index.js'
import { memoryOrganizationFixture } from './support/broken-organization-stores.js'

describeConformance(organizationStoresSuite(memoryOrganizationFixture()))
