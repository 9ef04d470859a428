// Organization routes for any framework: verified domains (claim, verify, enrollment, remove, the
// offers of a person's verified addresses) and the maintained free-mail list they refuse.
export { ORGANIZATION_DOMAIN_ROUTE_DOCS } from './domain-openapi.js'
export type { OrganizationDomainRouteTableOptions } from './domain-routes.js'
export { ORGANIZATION_DOMAIN_ROUTE_TABLE_OPTIONS, organizationDomainRouteTable } from './domain-routes.js'
export { FREE_MAIL_DOMAINS_SOURCE, freeMailDomains } from './free-mail-domains.js'
