// The health route: named dependency checks with a time bound, answered without error details.
export type { HealthAnswer, HealthCheck, HealthRouteOptions } from './health.js'
export { HEALTH_ROUTE_OPTIONS, healthHandler } from './health.js'
