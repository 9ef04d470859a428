import { type MCPResourceMark, type MCPRouteOptions, markFromOptions, markOf } from './marking.js'
import { joinPaths } from './route-path.js'

/** A route declared with the route option form, as an inspectable route registry reports it. */
export interface MCPRouteDeclaration {
  /** HTTP method in any case (`GET`). */
  readonly method: string
  /** Full Express path pattern from the application root (`/tenants/:tenantId/report`). */
  readonly path: string
  readonly options?: MCPRouteOptions
  /** The route's handlers: wrapper-form marks on them count too. */
  readonly handlers?: readonly unknown[]
}

/** The mark of a declared route: its route options, else the first wrapper-marked handler. */
export function declarationMark(route: MCPRouteDeclaration): MCPResourceMark | undefined {
  return markFromOptions(route.options) ?? route.handlers?.map(markOf).find((mark) => mark !== undefined)
}

/** Every route the application serves, as found in its router stack. */
export interface DiscoveredRoute {
  readonly method: string
  readonly path: string
  readonly mark?: MCPResourceMark
}

/** A marked route: where to send the in-process GET and what to publish. */
export interface MarkedRoute {
  readonly method: string
  readonly path: string
  readonly mark: MCPResourceMark
}

interface LayerLike {
  readonly rawPath?: unknown
  readonly route?: { readonly path?: unknown; readonly stack?: readonly LayerLike[] }
  readonly handle?: unknown
  readonly method?: string
}

function stackOf(value: unknown): readonly LayerLike[] | undefined {
  const stack = (value as { stack?: unknown } | null | undefined)?.stack
  return Array.isArray(stack) ? (stack as LayerLike[]) : undefined
}

function paths(raw: unknown): string[] {
  if (typeof raw === 'string') return [raw]
  if (Array.isArray(raw)) return raw.flat(Number.POSITIVE_INFINITY).filter((item) => typeof item === 'string')
  return []
}

/**
 * Walks an Express 5 router stack (nested routers included; mounted sub-applications are opaque and
 * skipped) and reports each method handler of each route with its full path and wrapper-form mark.
 */
export function discoverRoutes(router: unknown): DiscoveredRoute[] {
  const found: DiscoveredRoute[] = []
  const visit = (stack: readonly LayerLike[], prefix: string, depth: number) => {
    if (depth > 32) return
    for (const layer of stack) {
      if (layer.route !== undefined) {
        for (const path of paths(layer.route.path)) {
          for (const handlerLayer of layer.route.stack ?? []) {
            const mark = markOf(handlerLayer.handle)
            const method = (handlerLayer.method ?? 'all').toUpperCase()
            found.push({ method, path: joinPaths(prefix, path), ...(mark === undefined ? {} : { mark }) })
          }
        }
        continue
      }
      const nested = stackOf(layer.handle)
      if (nested === undefined) continue
      const mounts = paths(layer.rawPath)
      for (const mount of mounts.length === 0 ? [] : mounts)
        visit(nested, joinPaths(prefix, mount), depth + 1)
    }
  }
  const root = stackOf(router)
  if (root !== undefined) visit(root, '', 0)
  return found
}

/**
 * The marked routes of an application in router stack order: wrapper-form marks found in the stack plus
 * route declarations (options or marked handlers); the same route reported by both sources counts once.
 */
export function markedRoutes(
  discovered: readonly DiscoveredRoute[],
  declared: Iterable<MCPRouteDeclaration>,
): MarkedRoute[] {
  const marked: (MarkedRoute & { readonly order: number })[] = []
  const seen = new Set<string>()
  const position = (method: string, path: string) => {
    const index = discovered.findIndex((route) => route.method === method && route.path === path)
    return index === -1 ? Number.MAX_SAFE_INTEGER : index
  }
  const add = (method: string, path: string, mark: MCPResourceMark | undefined, order: number) => {
    if (mark === undefined) return
    const key = `${method}\u0000${mark.name}\u0000${path}`
    if (seen.has(key)) return
    seen.add(key)
    marked.push({ method, path, mark, order })
  }
  discovered.forEach((route, index) => {
    add(route.method, route.path, route.mark, index)
  })
  for (const route of declared) {
    const method = route.method.toUpperCase()
    add(method, route.path, declarationMark(route), position(method, route.path))
  }
  // registration order = router stack order, so "first registered template wins" follows the app
  return marked
    .sort((left, right) => left.order - right.order)
    .map(({ method, path, mark }) => ({ method, path, mark }))
}
