import { ConfigurationError, type OptionsShape, readOptions } from '../errors/index.js'
import {
  type Classified,
  classify,
  failure,
  JSON_RPC_ERROR,
  type JsonRpcResponse,
  RpcError,
  success,
} from './jsonrpc.js'
import { DEFAULT_MAX_BLOB_BYTES } from './links.js'
import { paginate } from './pagination.js'
import { allowsBatches, negotiateProtocolVersion } from './protocol.js'
import { type MCPResourceReader, type ReadDependencies, readResource } from './read.js'
import type { MCPRegisteredResource, MCPResourceRegistry } from './registry.js'
import type { SkillCatalog } from './skills.js'

export interface MCPServerInfo {
  readonly name: string
  readonly version: string
  readonly title?: string
}

export interface MCPDispatcherOptions<T, C> {
  readonly registry: MCPResourceRegistry<T>
  /** Reported by `initialize` (typically the application's name and version). */
  readonly serverInfo: MCPServerInfo
  /** Optional free-text hint for the model, returned by `initialize`. */
  readonly instructions?: string
  /** The application's OpenAPI document, served as `<scheme>://openapi`. */
  readonly openapi: (context: C) => unknown
  /** Runs a marked handler in-process with the caller's context. */
  readonly reader: MCPResourceReader<T, C>
  /** Required exactly when the registry was created with `skillsEnabled`. */
  readonly skills?: SkillCatalog
  /** Hides handler resources per caller: hidden ones are absent from lists and read as not found. */
  readonly visible?: (resource: MCPRegisteredResource<T>, context: C) => boolean
  /** Entries per `resources/list` / `resources/templates/list` page. Default 100. */
  readonly pageSize?: number
  /** Larger binary bodies fail the read (-32603, statusCode 413). Default 25 MiB. */
  readonly maxBlobBytes?: number
  /** Largest accepted batch (2025-03-26 clients only). Default 16. */
  readonly maxBatchSize?: number
}

const OPTION_INVALID = 'mcp.option_invalid'
const SERVER_INFO_OPTIONS: OptionsShape<MCPServerInfo> = {
  name: { required: true, kind: 'string', code: OPTION_INVALID },
  version: { required: true, kind: 'string', code: OPTION_INVALID },
  title: { kind: 'string' },
}
const DISPATCHER_OPTIONS: OptionsShape<MCPDispatcherOptions<unknown, unknown>> = {
  registry: { required: true, kind: 'object' },
  serverInfo: { required: true, kind: 'object', shape: SERVER_INFO_OPTIONS, code: OPTION_INVALID },
  instructions: { kind: 'string' },
  openapi: { required: true, kind: 'function' },
  reader: { required: true, kind: 'function' },
  skills: { kind: 'object' },
  visible: { kind: 'function' },
  pageSize: { kind: 'number', code: OPTION_INVALID },
  maxBlobBytes: { kind: 'number', code: OPTION_INVALID },
  maxBatchSize: { kind: 'number', code: OPTION_INVALID },
}

export interface MCPDispatchOptions<C> {
  readonly context: C
  /** The request's `MCP-Protocol-Version` header, already validated by the transport. */
  readonly protocolVersion?: string
}

/**
 * The transport outcome: `status` is the Streamable HTTP status to answer with (202 carries no body;
 * 400 for unparsable or invalid envelopes and rejected batches; 200 for everything a method produced).
 */
export type MCPDispatchResult =
  | { readonly status: 202 }
  | { readonly status: 200 | 400; readonly body: JsonRpcResponse | readonly JsonRpcResponse[] }

const OPENAPI_DESCRIPTION = 'OpenAPI 3.1 document describing this application'
const EMPTY_COMPLETION = Object.freeze({
  completion: Object.freeze({ values: [], total: 0, hasMore: false }),
})

function positiveInteger(value: number | undefined, fallback: number, field: string): number {
  const chosen = value ?? fallback
  if (!(Number.isSafeInteger(chosen) && chosen > 0)) {
    throw new ConfigurationError('mcp.option_invalid', `${field} must be a positive integer`)
  }
  return chosen
}

function compact(entry: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined))
}

type Method<C> = (params: Readonly<Record<string, unknown>> | undefined, context: C) => unknown

/**
 * A stateless MCP JSON-RPC 2.0 dispatcher over plain objects: `initialize`, `ping`, `resources/list`,
 * `resources/templates/list`, `resources/read`, `completion/complete`, and any notification.
 */
export class MCPDispatcher<T, C> {
  readonly #methods: ReadonlyMap<string, Method<C>>
  readonly #maxBatchSize: number

  constructor(options: MCPDispatcherOptions<T, C>) {
    readOptions(options, 'MCPDispatcher', DISPATCHER_OPTIONS as OptionsShape<MCPDispatcherOptions<T, C>>)
    const { registry, skills } = options
    if (registry.skillsEnabled !== (skills !== undefined)) {
      throw new ConfigurationError(
        'mcp.skills_mismatch',
        'pass a skills catalog exactly when the registry was created with skillsEnabled',
      )
    }
    const { name, version } = options.serverInfo
    if (typeof name !== 'string' || name === '' || typeof version !== 'string' || version === '') {
      throw new ConfigurationError('mcp.option_invalid', 'serverInfo needs a non-empty name and version')
    }
    const pageSize = positiveInteger(options.pageSize, 100, 'pageSize')
    this.#maxBatchSize = positiveInteger(options.maxBatchSize, 16, 'maxBatchSize')
    const visible = options.visible ?? (() => true)
    const deps: ReadDependencies<T, C> = {
      registry,
      skills,
      openapi: options.openapi,
      reader: options.reader,
      visible,
      maxBlobBytes: positiveInteger(options.maxBlobBytes, DEFAULT_MAX_BLOB_BYTES, 'maxBlobBytes'),
    }
    const serverInfo = compact({ ...options.serverInfo })
    const capabilities = { resources: { subscribe: false, listChanged: false }, completions: {} }
    const staticResources = [
      {
        uri: registry.openapiUri,
        name: 'openapi',
        description: OPENAPI_DESCRIPTION,
        mimeType: 'application/json',
      },
      ...(skills?.files ?? []).map(({ uri, name: fileName, description, mimeType, size }) =>
        compact({ uri, name: fileName, description, mimeType, size }),
      ),
    ]
    const listed = (resource: MCPRegisteredResource<T>) =>
      compact({
        name: resource.name,
        title: resource.title,
        description: resource.description,
        mimeType: resource.mimeType,
      })

    this.#methods = new Map<string, Method<C>>([
      [
        'initialize',
        (params) =>
          compact({
            protocolVersion: negotiateProtocolVersion(params?.protocolVersion),
            capabilities,
            serverInfo,
            instructions: options.instructions,
          }),
      ],
      ['ping', () => ({})],
      [
        'resources/list',
        (params, context) => {
          const handlers = registry.resources
            .filter((resource) => visible(resource, context))
            .map((resource) => ({ uri: resource.uri, ...listed(resource) }))
          const { page, nextCursor } = paginate([...staticResources, ...handlers], params, pageSize)
          return compact({ resources: page, nextCursor })
        },
      ],
      [
        'resources/templates/list',
        (params, context) => {
          const templates = registry.templates
            .filter((resource) => visible(resource, context))
            .map((resource) => ({ uriTemplate: resource.uriTemplate, ...listed(resource) }))
          const { page, nextCursor } = paginate(templates, params, pageSize)
          return compact({ resourceTemplates: page, nextCursor })
        },
      ],
      ['resources/read', (params, context) => readResource(params, context, deps)],
      ['completion/complete', () => EMPTY_COMPLETION],
    ])
  }

  /** Parses a raw body (bytes must be UTF-8) and dispatches it; unparsable input is -32700 with HTTP 400. */
  handleText(body: string | Uint8Array, options: MCPDispatchOptions<C>): Promise<MCPDispatchResult> {
    let message: unknown
    try {
      const text = typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: true }).decode(body)
      message = JSON.parse(text)
    } catch {
      return Promise.resolve({ status: 400, body: failure(null, JSON_RPC_ERROR.PARSE_ERROR, 'Parse error') })
    }
    return this.handle(message, options)
  }

  /** Dispatches one parsed message (or a batch, accepted only from 2025-03-26 clients). */
  async handle(message: unknown, options: MCPDispatchOptions<C>): Promise<MCPDispatchResult> {
    if (!Array.isArray(message)) {
      const outcome = await this.#one(classify(message), options.context)
      if (outcome === undefined) return { status: 202 }
      return { status: isEnvelopeError(outcome) ? 400 : 200, body: outcome }
    }
    if (!allowsBatches(options.protocolVersion)) {
      return {
        status: 400,
        body: failure(null, JSON_RPC_ERROR.INVALID_REQUEST, 'Batch requests are not supported'),
      }
    }
    if (message.length === 0 || message.length > this.#maxBatchSize) {
      const reason = message.length === 0 ? 'Empty batch' : `Batch larger than ${this.#maxBatchSize}`
      return { status: 400, body: failure(null, JSON_RPC_ERROR.INVALID_REQUEST, reason) }
    }
    const outcomes = await Promise.all(message.map((entry) => this.#one(classify(entry), options.context)))
    const responses = outcomes.filter((outcome): outcome is JsonRpcResponse => outcome !== undefined)
    return responses.length === 0 ? { status: 202 } : { status: 200, body: responses }
  }

  async #one(message: Classified, context: C): Promise<JsonRpcResponse | undefined> {
    switch (message.kind) {
      case 'notification':
      case 'client-response':
        return undefined
      case 'invalid':
        return failure(message.id, JSON_RPC_ERROR.INVALID_REQUEST, message.message)
      case 'request':
        break
    }
    const method = this.#methods.get(message.method)
    if (method === undefined) return failure(message.id, JSON_RPC_ERROR.METHOD_NOT_FOUND, 'Method not found')
    if (!message.paramsValid) {
      return failure(message.id, JSON_RPC_ERROR.INVALID_PARAMS, 'Invalid params: params must be an object')
    }
    try {
      const result = (await method(message.params, context)) as Readonly<Record<string, unknown>>
      return success(message.id, result)
    } catch (error) {
      if (error instanceof RpcError) return failure(message.id, error.code, error.message, error.data)
      return failure(message.id, JSON_RPC_ERROR.INTERNAL_ERROR, 'Internal error')
    }
  }
}

function isEnvelopeError(response: JsonRpcResponse): boolean {
  return 'error' in response && response.error.code === JSON_RPC_ERROR.INVALID_REQUEST
}
