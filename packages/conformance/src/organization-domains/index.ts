export type { OrganizationDomainStoreFactory, OrganizationDomainStoreFixture } from './fixture.js'
export { assertOrganizationDomainStoreConformance, organizationDomainStoreSuite } from './suite.js'
