// Organization routes for Fastify: verified domains (claim, verify, enrollment, remove) and the offers of
// a person's verified addresses.
export type { OrganizationDomainRoutesOptions } from './domain-routes.js'
export { createOrganizationDomainRoutes } from './domain-routes.js'
