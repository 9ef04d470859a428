import type { MCPCacheHint } from './modern.js'
import { paginate } from './pagination.js'
import { negotiateProtocolVersion, SUPPORTED_MODERN_PROTOCOL_VERSIONS } from './protocol.js'
import { type ReadDependencies, readResource } from './read.js'
import type { MCPRegisteredResource } from './registry.js'

/** A method's result, with the caching hint the 2026-07-28 revision sends beside cacheable results. */
export interface MethodOutcome {
  readonly result: Readonly<Record<string, unknown>>
  readonly cache?: MCPCacheHint
}

export type Method<C> = (
  params: Readonly<Record<string, unknown>> | undefined,
  context: C,
) => MethodOutcome | Promise<MethodOutcome>

export interface MethodSetup<T, C> extends ReadDependencies<T, C> {
  readonly serverInfo: Readonly<Record<string, unknown>>
  readonly instructions: string | undefined
  readonly pageSize: number
  /** Whether a (visible) handler resource is listed for the caller. */
  readonly listed:
    | ((resource: MCPRegisteredResource<T>, context: C) => boolean | Promise<boolean>)
    | undefined
  /** Hint of results every caller gets alike (discover, and lists when nothing filters them per caller). */
  readonly sharedCache: MCPCacheHint
  readonly listCache: MCPCacheHint
}

const OPENAPI_DESCRIPTION = 'OpenAPI 3.1 document describing this application'
const EMPTY_COMPLETION = Object.freeze({
  result: Object.freeze({ completion: Object.freeze({ values: [], total: 0, hasMore: false }) }),
})
const PONG = Object.freeze({ result: Object.freeze({}) })
const CAPABILITIES = Object.freeze({
  resources: Object.freeze({ subscribe: false, listChanged: false }),
  completions: Object.freeze({}),
})

export function compact(entry: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined))
}

function listedFields<T>(resource: MCPRegisteredResource<T>) {
  return compact({
    name: resource.name,
    title: resource.title,
    description: resource.description,
    mimeType: resource.mimeType,
  })
}

/** The handler resources listed for the caller: visible ones, then (when set) those `listed` admits. */
async function forCaller<T, C, R extends MCPRegisteredResource<T>>(
  resources: readonly R[],
  context: C,
  setup: MethodSetup<T, C>,
): Promise<R[]> {
  const visible = resources.filter((resource) => setup.visible(resource, context))
  const listed = setup.listed
  if (listed === undefined) return visible
  const decisions = await Promise.all(
    visible.map(async (resource) => {
      try {
        return await listed(resource, context)
      } catch {
        return false // a decision that cannot be made lists nothing
      }
    }),
  )
  return visible.filter((_, index) => decisions[index] === true)
}

/**
 * The methods of both eras: the initialize era (`initialize`, `ping`) and the stateless 2026-07-28 revision
 * (`server/discover`) share `resources/list`, `resources/templates/list`, `resources/read` and
 * `completion/complete` (always empty).
 */
export function methodTables<T, C>(
  setup: MethodSetup<T, C>,
): { readonly legacy: ReadonlyMap<string, Method<C>>; readonly modern: ReadonlyMap<string, Method<C>> } {
  const { registry, skills, pageSize } = setup
  const staticResources = [
    {
      uri: registry.openapiUri,
      name: 'openapi',
      description: OPENAPI_DESCRIPTION,
      mimeType: 'application/json',
    },
    ...(skills?.files ?? []).map(({ uri, name, description, mimeType, size }) =>
      compact({ uri, name, description, mimeType, size }),
    ),
  ]
  const shared: Array<[string, Method<C>]> = [
    [
      'resources/list',
      async (params, context) => {
        const handlers = (await forCaller(registry.resources, context, setup)).map((resource) => ({
          uri: resource.uri,
          ...listedFields(resource),
        }))
        const { page, nextCursor } = paginate([...staticResources, ...handlers], params, pageSize)
        return { result: compact({ resources: page, nextCursor }), cache: setup.listCache }
      },
    ],
    [
      'resources/templates/list',
      async (params, context) => {
        const templates = (await forCaller(registry.templates, context, setup)).map((resource) => ({
          uriTemplate: resource.uriTemplate,
          ...listedFields(resource),
        }))
        const { page, nextCursor } = paginate(templates, params, pageSize)
        return { result: compact({ resourceTemplates: page, nextCursor }), cache: setup.listCache }
      },
    ],
    ['resources/read', (params, context) => readResource(params, context, setup)],
    ['completion/complete', () => EMPTY_COMPLETION],
  ]
  const initialize: Method<C> = (params) => ({
    result: compact({
      protocolVersion: negotiateProtocolVersion(params?.protocolVersion),
      capabilities: CAPABILITIES,
      serverInfo: setup.serverInfo,
      instructions: setup.instructions,
    }),
  })
  const discover: Method<C> = () => ({
    result: compact({
      supportedVersions: [...SUPPORTED_MODERN_PROTOCOL_VERSIONS],
      capabilities: CAPABILITIES,
      instructions: setup.instructions,
    }),
    cache: setup.sharedCache,
  })
  return {
    legacy: new Map([['initialize', initialize], ['ping', () => PONG], ...shared]),
    modern: new Map([['server/discover', discover], ...shared]),
  }
}
