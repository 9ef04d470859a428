export type { HealthCheck, HealthRouteOptions } from './health/health-route.js'
export { mountHealthRoute } from './health/health-route.js'
