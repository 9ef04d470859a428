export type { OrganizationStoresFactory, OrganizationStoresFixture } from './fixture.js'
export { assertOrganizationStoresConformance, organizationStoresSuite } from './suite.js'
