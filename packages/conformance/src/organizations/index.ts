export type { OrganizationStoresFactory, OrganizationStoresFixture } from './fixture.js'
export type {
  JoinRequestStores,
  JoinRequestStoresFactory,
  JoinRequestStoresFixture,
} from './join-request-fixture.js'
export { assertJoinRequestStoresConformance, joinRequestStoresSuite } from './join-request-suite.js'
export { assertOrganizationStoresConformance, organizationStoresSuite } from './suite.js'
