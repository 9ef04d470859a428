// Organization routes for Fastify: organizations, members, roles and invitations; verified domains
// (claim, verify, enrollment, remove) and the offers of a person's verified addresses.
export type { ActiveOrganizationRoutesOptions } from './active-routes.js'
export { createActiveOrganizationRoutes } from './active-routes.js'
export type { OrganizationDomainRoutesOptions } from './domain-routes.js'
export { createOrganizationDomainRoutes } from './domain-routes.js'
export type { OrganizationRoutesOptions } from './routes.js'
export { createOrganizationRoutes } from './routes.js'
