import { type OptionsShape, readOptions } from '@portcullis/core/errors'

/** Route options that publish a GET route as an MCP resource (the route option form). */
export interface MCPRouteOptions {
  /** Resource name; a non-template resource is published as `<scheme>://<name>`. */
  readonly mcpResource?: string
  /** Advertised mime type; used when the handler sets no `Content-Type`. */
  readonly mcpResourceMimeType?: string
  /** RFC 6570 level-1 template whose variables are exactly the route's path parameters. */
  readonly mcpResourceTemplate?: string
  /** Description shown to the model in listings. */
  readonly mcpResourceDescription?: string
  /** Human display name. */
  readonly mcpResourceTitle?: string
  /** 2026-07-28 caching hint: how long a read stays fresh, in milliseconds. Default 0. */
  readonly mcpResourceTtlMs?: number
}

/** The route option keys of the MCP route option form, known to every Portcullis router. */
export const MCP_ROUTE_OPTION_KEYS: readonly (keyof MCPRouteOptions)[] = Object.freeze([
  'mcpResource',
  'mcpResourceMimeType',
  'mcpResourceTemplate',
  'mcpResourceDescription',
  'mcpResourceTitle',
  'mcpResourceTtlMs',
])

/** Options of the wrapper form `mcpResource(name, options)(handler)`. */
export interface MCPResourceMarkOptions {
  readonly mimeType?: string
  readonly template?: string
  readonly description?: string
  readonly title?: string
  /** 2026-07-28 caching hint: how long a read stays fresh, in milliseconds. Default 0. */
  readonly ttlMs?: number
}

/** The options of the wrapper form `mcpResource(name, options)`. */
export const MCP_RESOURCE_MARK_OPTIONS: OptionsShape<MCPResourceMarkOptions> = {
  mimeType: { kind: 'string' },
  template: { kind: 'string' },
  description: { kind: 'string' },
  title: { kind: 'string' },
  ttlMs: {
    kind: 'number',
    check: (value) =>
      Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : 'must be a non-negative integer',
  },
}

/** The resource metadata attached to a marked handler. */
export interface MCPResourceMark {
  readonly name: string
  readonly mimeType?: string
  readonly template?: string
  readonly description?: string
  readonly title?: string
  readonly ttlMs?: number
}

const MARK = Symbol.for('portcullis.mcp.resource')

/** Any route handler function, of whichever framework. */
// biome-ignore lint/suspicious/noExplicitAny: a handler of any framework, called with its own arguments
export type AnyHandler = (...args: any[]) => unknown

/**
 * The wrapper form: `router.get('/config', mcpResource('config', { mimeType: 'application/json' })(handler))`.
 * The returned handler behaves exactly like `handler`; the adapter finds it on the route (Express: in the
 * app's router stack at `attach()`; Fastify: when the route is added). Marking a handler that ends up on a
 * non-GET route is a startup error.
 */
export function mcpResource(name: string, options: MCPResourceMarkOptions = {}) {
  readOptions(options, 'mcpResource', MCP_RESOURCE_MARK_OPTIONS)
  const mark: MCPResourceMark = Object.freeze({ name, ...options })
  return <H extends AnyHandler>(handler: H): H => {
    if (typeof handler !== 'function')
      throw new TypeError('mcpResource(...) wraps a request handler function')
    const marked = function (this: unknown, ...args: Parameters<H>) {
      return handler.apply(this, args)
    } as H
    Object.defineProperty(marked, 'name', { value: handler.name })
    Object.defineProperty(marked, MARK, { value: mark })
    return marked
  }
}

/** The mark of a wrapped handler, if any. */
export function markOf(handler: unknown): MCPResourceMark | undefined {
  if (typeof handler !== 'function') return undefined
  const mark = (handler as unknown as Record<symbol, unknown>)[MARK]
  return mark === undefined ? undefined : (mark as MCPResourceMark)
}

/** The mark described by route options, if they name a resource. */
export function markFromOptions(options: MCPRouteOptions | undefined): MCPResourceMark | undefined {
  if (options?.mcpResource === undefined) return undefined
  const {
    mcpResource: name,
    mcpResourceMimeType,
    mcpResourceTemplate,
    mcpResourceDescription,
    mcpResourceTitle,
    mcpResourceTtlMs,
  } = options
  return Object.freeze({
    name,
    ...(mcpResourceMimeType === undefined ? {} : { mimeType: mcpResourceMimeType }),
    ...(mcpResourceTemplate === undefined ? {} : { template: mcpResourceTemplate }),
    ...(mcpResourceDescription === undefined ? {} : { description: mcpResourceDescription }),
    ...(mcpResourceTitle === undefined ? {} : { title: mcpResourceTitle }),
    ...(mcpResourceTtlMs === undefined ? {} : { ttlMs: mcpResourceTtlMs }),
  })
}
