import type { DiscoveredRoute } from './declaration.js'

const METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'])

/**
 * A minimal OpenAPI 3.1 document listing the application's routes, used for `<scheme>://openapi` when
 * no OpenAPI provider is configured (the route-policy adapter's generator describes far more).
 */
export function minimalOpenApi(
  routes: readonly DiscoveredRoute[],
  info: { readonly name: string; readonly version: string },
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    if (!METHODS.has(route.method) || /[*?+(){}[\]\\]/.test(route.path)) continue
    const parameters = [...route.path.matchAll(/:([A-Za-z_$][A-Za-z0-9_$]*)/g)].map((match) => ({
      name: match[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }))
    const path = route.path.replaceAll(/:([A-Za-z_$][A-Za-z0-9_$]*)/g, '{$1}')
    const item = paths[path] ?? {}
    item[route.method.toLowerCase()] = {
      ...(parameters.length === 0 ? {} : { parameters }),
      responses: { default: { description: 'Response' } },
    }
    paths[path] = item
  }
  return { openapi: '3.1.0', info: { title: info.name, version: info.version }, paths }
}
