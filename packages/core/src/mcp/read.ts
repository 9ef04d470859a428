import { isPortcullisError } from '../errors/index.js'
import {
  errorContent,
  type MCPResourceResponse,
  type ResourceContents,
  toResourceContents,
} from './contents.js'
import { JSON_RPC_ERROR, RpcError } from './jsonrpc.js'
import type { MCPCacheHint } from './modern.js'
import { canonicalUri, type MCPRegisteredResource, type MCPResourceRegistry } from './registry.js'
import type { SkillCatalog } from './skills.js'

/**
 * Reads one handler resource in-process: the adapter runs the marked route with the decoded template
 * variables as path parameters and the caller's credentials from `context`, and returns what it produced.
 */
export type MCPResourceReader<T, C> = (
  resource: MCPRegisteredResource<T>,
  params: Readonly<Record<string, string>>,
  context: C,
) => Promise<MCPResourceResponse>

export interface ReadDependencies<T, C> {
  readonly registry: MCPResourceRegistry<T>
  readonly skills: SkillCatalog | undefined
  readonly openapi: (context: C) => unknown
  readonly reader: MCPResourceReader<T, C>
  readonly visible: (resource: MCPRegisteredResource<T>, context: C) => boolean
  readonly maxBlobBytes: number
  /** The caching hint of a read: of a handler resource, or of a built-in one (openapi, skills). */
  readonly cacheHint: (resource: MCPRegisteredResource<T> | undefined) => MCPCacheHint
}

/** What a read produced, with the caching hint the 2026-07-28 revision sends beside it. */
export interface ReadOutcome {
  readonly result: { readonly contents: ResourceContents[] }
  readonly cache: MCPCacheHint
}

const MAX_URI_LENGTH = 8192
const INTERNAL_PROBLEM = Object.freeze({ type: 'about:blank', title: 'Internal Server Error', status: 500 })

export function notFound(uri: string): RpcError {
  return new RpcError(JSON_RPC_ERROR.INVALID_PARAMS, 'Resource not found', { uri })
}

export function readFailed(statusCode: number, content: unknown): RpcError {
  return new RpcError(JSON_RPC_ERROR.INTERNAL_ERROR, 'Resource read failed', { statusCode, content })
}

function convert(
  uri: string,
  response: Pick<MCPResourceResponse, 'contentType' | 'body'>,
  declared: string | undefined,
  maxBlobBytes: number,
) {
  try {
    return toResourceContents(uri, response, {
      maxBlobBytes,
      ...(declared === undefined ? {} : { declaredMimeType: declared }),
    })
  } catch (error) {
    if (isPortcullisError(error) && error.code === 'mcp.blob_too_large') {
      throw readFailed(413, { code: error.code, detail: error.message })
    }
    throw error
  }
}

async function readOpenApi<C>(
  uri: string,
  context: C,
  provider: (context: C) => unknown,
): Promise<ResourceContents> {
  let document: unknown
  try {
    document = await provider(context)
  } catch {
    throw readFailed(500, INTERNAL_PROBLEM)
  }
  return { uri, mimeType: 'application/json', text: JSON.stringify(document) }
}

/**
 * `resources/read`: `<scheme>://openapi`, then the skills catalog (when enabled, every `skill://` URI is
 * answered there), then concrete handler resources, then templates in registration order; schemes compare
 * case-insensitively. A miss is -32602 `Resource not found` with `data: { uri }`; a handler status outside
 * 2xx, or a reader that throws, is -32603 `Resource read failed` with `data: { statusCode, content }`.
 */
export async function readResource<T, C>(
  params: Readonly<Record<string, unknown>> | undefined,
  context: C,
  deps: ReadDependencies<T, C>,
): Promise<ReadOutcome> {
  const uri = params?.uri
  if (typeof uri !== 'string' || uri.length === 0 || uri.length > MAX_URI_LENGTH) {
    throw new RpcError(JSON_RPC_ERROR.INVALID_PARAMS, 'Invalid resource URI: uri must be a non-empty string')
  }
  const canonical = canonicalUri(uri)
  if (canonical === deps.registry.openapiUri) {
    const contents = [await readOpenApi(uri, context, deps.openapi)]
    return { result: { contents }, cache: deps.cacheHint(undefined) }
  }
  if (deps.skills !== undefined && canonical.startsWith('skill://')) {
    const file = await deps.skills.read(canonical).catch(() => {
      throw readFailed(500, INTERNAL_PROBLEM)
    })
    if (file === undefined) throw notFound(uri)
    const contents = [
      convert(uri, { contentType: file.mimeType, body: file.body }, file.mimeType, deps.maxBlobBytes),
    ]
    return { result: { contents }, cache: deps.cacheHint(undefined) }
  }
  const resolved = deps.registry.resolve(canonical, (resource) => deps.visible(resource, context))
  if (resolved === undefined) throw notFound(uri)
  let response: MCPResourceResponse
  try {
    response = await deps.reader(resolved.resource, resolved.params, context)
  } catch {
    throw readFailed(500, INTERNAL_PROBLEM)
  }
  if (!(response.status >= 200 && response.status < 300))
    throw readFailed(response.status, errorContent(response))
  const contents = [convert(uri, response, resolved.resource.mimeType, deps.maxBlobBytes)]
  return { result: { contents }, cache: deps.cacheHint(resolved.resource) }
}
