import {
  type DiscoveredRoute,
  declarationMark,
  joinPaths,
  type MCPResourceMark,
  type MCPRouteDeclaration,
  markOf,
} from '@portcullis/http/mcp'
import { INNER_ROUTER } from '../routing/secure-router.js'

/** A marked route: where to send the in-process GET and what to publish. */
export interface MarkedRoute {
  readonly method: string
  readonly path: string
  readonly mark: MCPResourceMark
  /** A handler of the route (its layer is found by it), when known. */
  readonly handler: unknown
  /** The declaration of the route (with its policy and guards), when it was declared. */
  readonly declaration: MCPRouteDeclaration | undefined
}

/** A discovered route with the handler that carries its mark. */
interface WalkedRoute extends DiscoveredRoute {
  readonly handler: unknown
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

/** The stack of a router layer's handle, a Portcullis secure router's included. */
function nestedStackOf(handle: unknown): readonly LayerLike[] | undefined {
  const inner = (handle as { [INNER_ROUTER]?: unknown } | null | undefined)?.[INNER_ROUTER]
  return stackOf(handle) ?? (inner === undefined ? undefined : stackOf(inner))
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
  return walkRoutes(router, false).map(({ method, path, mark }) => ({
    method,
    path,
    ...(mark === undefined ? {} : { mark }),
  }))
}

/** `discoverRoutes` with each route's handler; `secure`: Portcullis secure routers are walked too. */
export function walkRoutes(router: unknown, secure: boolean): WalkedRoute[] {
  const found: WalkedRoute[] = []
  const visit = (stack: readonly LayerLike[], prefix: string, depth: number) => {
    if (depth > 32) return
    for (const layer of stack) {
      if (layer.route !== undefined) {
        for (const path of paths(layer.route.path)) {
          for (const handlerLayer of layer.route.stack ?? []) {
            const mark = markOf(handlerLayer.handle)
            const method = (handlerLayer.method ?? 'all').toUpperCase()
            found.push({
              method,
              path: joinPaths(prefix, path),
              handler: handlerLayer.handle,
              ...(mark === undefined ? {} : { mark }),
            })
          }
        }
        continue
      }
      const nested = secure ? nestedStackOf(layer.handle) : stackOf(layer.handle)
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
  discovered: readonly WalkedRoute[],
  declared: Iterable<MCPRouteDeclaration>,
): MarkedRoute[] {
  const declarations = [...declared]
  const marked: (MarkedRoute & { readonly order: number })[] = []
  const seen = new Set<string>()
  const position = (method: string, path: string) => {
    const index = discovered.findIndex((route) => route.method === method && route.path === path)
    return index === -1 ? Number.MAX_SAFE_INTEGER : index
  }
  const declarationOf = (method: string, path: string) =>
    declarations.find((route) => route.method.toUpperCase() === method && route.path === path)
  const add = (
    method: string,
    path: string,
    mark: MCPResourceMark | undefined,
    handler: unknown,
    order: number,
  ) => {
    if (mark === undefined) return
    const key = `${method}\u0000${mark.name}\u0000${path}`
    if (seen.has(key)) return
    seen.add(key)
    marked.push({ method, path, mark, handler, declaration: declarationOf(method, path), order })
  }
  discovered.forEach((route, index) => {
    add(route.method, route.path, route.mark, route.handler, index)
  })
  for (const route of declarations) {
    const method = route.method.toUpperCase()
    add(method, route.path, declarationMark(route), route.handlers?.[0], position(method, route.path))
  }
  // registration order = router stack order, so "first registered template wins" follows the app
  return marked.sort((left, right) => left.order - right.order).map(({ order: _order, ...route }) => route)
}
