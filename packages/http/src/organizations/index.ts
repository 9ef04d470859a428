// Organization routes for any framework: organizations, members, roles and invitations; verified
// domains (claim, verify, enrollment, remove, the offers of a person's verified addresses) and the
// maintained free-mail list they refuse.
export type { ActiveOrganizationRouteTableOptions } from './active-routes.js'
export {
  ACTIVE_ORGANIZATION_ROUTE_DOCS,
  ACTIVE_ORGANIZATION_ROUTE_TABLE_OPTIONS,
  activeOrganizationRouteTable,
} from './active-routes.js'
export { ORGANIZATION_DOMAIN_ROUTE_DOCS } from './domain-openapi.js'
export type { OrganizationDomainRouteTableOptions } from './domain-routes.js'
export { ORGANIZATION_DOMAIN_ROUTE_TABLE_OPTIONS, organizationDomainRouteTable } from './domain-routes.js'
export { FREE_MAIL_DOMAINS_SOURCE, freeMailDomains } from './free-mail-domains.js'
export { JOIN_REQUEST_ROUTE_DOCS } from './join-request-openapi.js'
export { addJoinRequestRoutes, joinRequestBody } from './join-request-routes.js'
export { ORGANIZATION_ROUTE_DOCS } from './openapi.js'
export type { OrganizationRouteTableOptions } from './routes.js'
export { ORGANIZATION_ROUTE_TABLE_OPTIONS, organizationRouteTable } from './routes.js'
