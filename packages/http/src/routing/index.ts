// The route table every adapter fills: path syntax, route options, and the inspectable registry.
export type { ParsedRoutePath } from './paths.js'
export { joinPath, parseRoutePath } from './paths.js'
export type { OperationDocumentation, RouteOptions } from './route-options.js'
export type { HttpMethod, RegisteredRoute, RouteListener } from './route-registry.js'
export { RouteRegistry } from './route-registry.js'
