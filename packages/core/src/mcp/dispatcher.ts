import { ConfigurationError, type OptionsShape, readOptions } from '../errors/index.js'
import { decodeUtf8 } from './contents.js'
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
import { compact, type Method, type MethodSetup, methodTables } from './methods.js'
import {
  carriesModernClaim,
  checkModernNotification,
  checkModernRequest,
  claimsEnvelope,
  initializeWithModernHeader,
  type MCPCacheHint,
  type MCPCacheScope,
  type MCPRequestHeaders,
  missingEnvelope,
  modernResult,
} from './modern.js'
import {
  allowsBatches,
  isSupportedProtocolVersion,
  SUPPORTED_MODERN_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './protocol.js'
import type { MCPResourceReader } from './read.js'
import type { MCPRegisteredResource, MCPResourceRegistry } from './registry.js'
import type { SkillCatalog } from './skills.js'

export interface MCPServerInfo {
  readonly name: string
  readonly version: string
  readonly title?: string
}

export interface MCPDispatcherOptions<T, C> {
  readonly registry: MCPResourceRegistry<T>
  /** Reported by `initialize` and in `_meta` of 2026-07-28 results (the application's name and version). */
  readonly serverInfo: MCPServerInfo
  /** Optional free-text hint for the model, returned by `initialize` and `server/discover`. */
  readonly instructions?: string
  /** The application's OpenAPI document, served as `<scheme>://openapi`. */
  readonly openapi: (context: C) => unknown
  /** Runs a marked handler in-process with the caller's context. */
  readonly reader: MCPResourceReader<T, C>
  /** Required exactly when the registry was created with `skillsEnabled`. */
  readonly skills?: SkillCatalog
  /** Hides handler resources per caller: hidden ones are absent from lists and read as not found. */
  readonly visible?: (resource: MCPRegisteredResource<T>, context: C) => boolean
  /**
   * Which handler resources the lists show: every one (`'all'`, the default) or only those `readable`
   * admits for the caller (`'readable'`). Reads are never affected.
   */
  readonly listing?: 'all' | 'readable'
  /**
   * Whether the caller could read a resource, decided without running it (templates: without variables).
   * Required with `listing: 'readable'`; a decision that throws or rejects leaves the resource unlisted.
   */
  readonly readable?: (resource: MCPRegisteredResource<T>, context: C) => boolean | Promise<boolean>
  /** 2026-07-28 `cacheScope` of a handler resource's read. Default `'private'`. */
  readonly cacheScope?: (resource: MCPRegisteredResource<T>) => MCPCacheScope
  /**
   * 2026-07-28 `cacheScope` of the answers every caller gets alike: `server/discover`, the openapi and
   * skill resources, and the lists unless `visible` or `listing: 'readable'` tailor them. Default `'private'`.
   */
  readonly sharedCacheScope?: MCPCacheScope
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
  listing: { kind: 'string', code: OPTION_INVALID },
  readable: { kind: 'function' },
  cacheScope: { kind: 'function' },
  sharedCacheScope: { kind: 'string', code: OPTION_INVALID },
  pageSize: { kind: 'number', code: OPTION_INVALID },
  maxBlobBytes: { kind: 'number', code: OPTION_INVALID },
  maxBatchSize: { kind: 'number', code: OPTION_INVALID },
}

export interface MCPDispatchOptions<C> {
  readonly context: C
  /** The request's `MCP-Protocol-Version` header. */
  readonly protocolVersion?: string
  /** The request's `Mcp-Method` header (2026-07-28). */
  readonly mcpMethod?: string
  /** The request's `Mcp-Name` header (2026-07-28). */
  readonly mcpName?: string
}

/**
 * The transport outcome: `status` is the Streamable HTTP status to answer with (202 carries no body;
 * 400 for unparsable or invalid envelopes, rejected batches, unsupported versions and 2026-07-28 header
 * or `_meta` problems; 404 for a method the 2026-07-28 revision does not define; 200 for everything a
 * method produced).
 */
export type MCPDispatchResult =
  | { readonly status: 202 }
  | { readonly status: 200 | 400 | 404; readonly body: JsonRpcResponse | readonly JsonRpcResponse[] }

/** Implementation-defined JSON-RPC code of a transport refusal (an unsupported initialize-era version). */
const TRANSPORT_ERROR = -32000

function positiveInteger(value: number | undefined, fallback: number, field: string): number {
  const chosen = value ?? fallback
  if (!(Number.isSafeInteger(chosen) && chosen > 0)) {
    throw new ConfigurationError('mcp.option_invalid', `${field} must be a positive integer`)
  }
  return chosen
}

function scope(value: unknown, field: string): MCPCacheScope {
  if (value === undefined || value === 'private') return 'private'
  if (value === 'public') return 'public'
  throw new ConfigurationError('mcp.option_invalid', `${field} must be "public" or "private"`)
}

/**
 * A stateless MCP JSON-RPC 2.0 dispatcher over plain objects, choosing the protocol era per message: a
 * request whose `params._meta` names a protocol version is served by the 2026-07-28 revision
 * (`server/discover`, headers checked against the body, `resultType` and caching hints on results);
 * anything else by the initialize era (`initialize`, `ping`, notifications, 2025-03-26 batches). Both
 * serve `resources/list`, `resources/templates/list`, `resources/read` and `completion/complete`.
 */
export class MCPDispatcher<T, C> {
  readonly #legacy: ReadonlyMap<string, Method<C>>
  readonly #modern: ReadonlyMap<string, Method<C>>
  readonly #serverInfo: Readonly<Record<string, unknown>>
  readonly #sharedCache: MCPCacheHint
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
    const listing = options.listing ?? 'all'
    if (listing !== 'all' && listing !== 'readable') {
      throw new ConfigurationError('mcp.option_invalid', 'listing must be "all" or "readable"')
    }
    const readable = options.readable
    if (listing === 'readable' && readable === undefined) {
      throw new ConfigurationError('mcp.option_invalid', 'listing "readable" needs a readable function')
    }
    this.#maxBatchSize = positiveInteger(options.maxBatchSize, 16, 'maxBatchSize')
    this.#serverInfo = compact({ ...options.serverInfo })
    const shared: MCPCacheHint = { ttlMs: 0, cacheScope: scope(options.sharedCacheScope, 'sharedCacheScope') }
    this.#sharedCache = shared
    const tailored = options.visible !== undefined || listing === 'readable'
    const resourceScope = options.cacheScope
    const setup: MethodSetup<T, C> = {
      registry,
      skills,
      openapi: options.openapi,
      reader: options.reader,
      visible: options.visible ?? (() => true),
      maxBlobBytes: positiveInteger(options.maxBlobBytes, DEFAULT_MAX_BLOB_BYTES, 'maxBlobBytes'),
      serverInfo: this.#serverInfo,
      instructions: options.instructions,
      pageSize: positiveInteger(options.pageSize, 100, 'pageSize'),
      listed: listing === 'readable' ? readable : undefined,
      sharedCache: shared,
      listCache: tailored ? { ttlMs: 0, cacheScope: 'private' } : shared,
      cacheHint: (resource) => {
        if (resource === undefined) return shared
        // a resource hidden from some callers must never sit in a cache other callers read
        const cacheScope =
          options.visible !== undefined || resourceScope === undefined ? 'private' : resourceScope(resource)
        return { ttlMs: resource.ttlMs ?? 0, cacheScope: cacheScope === 'public' ? 'public' : 'private' }
      },
    }
    const tables = methodTables(setup)
    this.#legacy = tables.legacy
    this.#modern = tables.modern
  }

  /** Parses a raw body (bytes must be UTF-8) and dispatches it; unparsable input is -32700 with HTTP 400. */
  handleText(body: string | Uint8Array, options: MCPDispatchOptions<C>): Promise<MCPDispatchResult> {
    let message: unknown
    try {
      const text = typeof body === 'string' ? body : decodeUtf8(body)
      if (text === undefined) throw new SyntaxError('invalid UTF-8')
      message = JSON.parse(text)
    } catch {
      return Promise.resolve({ status: 400, body: failure(null, JSON_RPC_ERROR.PARSE_ERROR, 'Parse error') })
    }
    return this.handle(message, options)
  }

  /** Dispatches one parsed message (or a batch, accepted only from 2025-03-26 clients). */
  async handle(message: unknown, options: MCPDispatchOptions<C>): Promise<MCPDispatchResult> {
    const headers: MCPRequestHeaders = {
      ...(options.protocolVersion === undefined ? {} : { protocolVersion: options.protocolVersion }),
      ...(options.mcpMethod === undefined ? {} : { method: options.mcpMethod }),
      ...(options.mcpName === undefined ? {} : { name: options.mcpName }),
    }
    if (!Array.isArray(message) && claimsEnvelope(message)) {
      const initialize = (message as { method?: unknown }).method === 'initialize'
      if (!initialize || carriesModernClaim((message as { params?: unknown }).params)) {
        return this.#modernMessage(classify(message), headers, options.context)
      }
    }
    const refused = this.#legacyVersion(message, options.protocolVersion)
    if (refused !== undefined) return refused
    if (!Array.isArray(message)) {
      const outcome = await this.#legacyMessage(classify(message), options.context)
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
    if (message.some(claimsEnvelope)) {
      const reason = 'JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later'
      return { status: 400, body: failure(null, JSON_RPC_ERROR.INVALID_REQUEST, reason) }
    }
    const outcomes = await Promise.all(
      message.map((entry) => this.#legacyMessage(classify(entry), options.context)),
    )
    const responses = outcomes.filter((outcome): outcome is JsonRpcResponse => outcome !== undefined)
    return responses.length === 0 ? { status: 202 } : { status: 200, body: responses }
  }

  /**
   * The `MCP-Protocol-Version` header of a message without the 2026-07-28 envelope: an initialize-era
   * version (or none) is served; `2026-07-28` means the envelope is missing (400 -32602; a notification
   * is acknowledged); anything else is 400 with the initialize-era versions in `data.supported`.
   */
  #legacyVersion(message: unknown, version: string | undefined): MCPDispatchResult | undefined {
    if (version === undefined || isSupportedProtocolVersion(version)) return undefined
    if (SUPPORTED_MODERN_PROTOCOL_VERSIONS.includes(version) && !Array.isArray(message)) {
      const classified = classify(message)
      if (classified.kind !== 'request') return classified.kind === 'invalid' ? undefined : { status: 202 }
      return classified.method === 'initialize'
        ? initializeWithModernHeader(classified.id, version)
        : missingEnvelope(classified.id, version, classified.params)
    }
    return {
      status: 400,
      body: failure(null, TRANSPORT_ERROR, `Bad Request: Unsupported protocol version: ${version}`, {
        supported: SUPPORTED_PROTOCOL_VERSIONS,
        requested: version,
      }),
    }
  }

  async #legacyMessage(message: Classified, context: C): Promise<JsonRpcResponse | undefined> {
    switch (message.kind) {
      case 'notification':
      case 'client-response':
        return undefined
      case 'invalid':
        return failure(message.id, JSON_RPC_ERROR.INVALID_REQUEST, message.message)
      case 'request':
        break
    }
    const method = this.#legacy.get(message.method)
    if (method === undefined) return failure(message.id, JSON_RPC_ERROR.METHOD_NOT_FOUND, 'Method not found')
    if (!message.paramsValid) {
      return failure(message.id, JSON_RPC_ERROR.INVALID_PARAMS, 'Invalid params: params must be an object')
    }
    try {
      return success(message.id, (await method(message.params, context)).result)
    } catch (error) {
      return rpcFailure(message.id, error)
    }
  }

  async #modernMessage(
    message: Classified,
    headers: MCPRequestHeaders,
    context: C,
  ): Promise<MCPDispatchResult> {
    switch (message.kind) {
      case 'client-response':
        return { status: 202 }
      case 'invalid':
        return { status: 400, body: failure(message.id, JSON_RPC_ERROR.INVALID_REQUEST, message.message) }
      case 'notification':
        return checkModernNotification(message.method, message.params, headers) ?? { status: 202 }
      case 'request':
        break
    }
    const refused = checkModernRequest(message.id, message.method, message.params, headers)
    if (refused !== undefined) return refused
    const method = this.#modern.get(message.method) as Method<C>
    try {
      const outcome = await method(message.params, context)
      const result = modernResult(
        message.method,
        outcome.result,
        outcome.cache ?? this.#sharedCache,
        this.#serverInfo,
      )
      return { status: 200, body: success(message.id, result) }
    } catch (error) {
      return { status: 200, body: rpcFailure(message.id, error) }
    }
  }
}

function rpcFailure(id: JsonRpcResponse['id'], error: unknown): JsonRpcResponse {
  if (error instanceof RpcError) return failure(id, error.code, error.message, error.data)
  return failure(id, JSON_RPC_ERROR.INTERNAL_ERROR, 'Internal error')
}

function isEnvelopeError(response: JsonRpcResponse): boolean {
  return 'error' in response && response.error.code === JSON_RPC_ERROR.INVALID_REQUEST
}
