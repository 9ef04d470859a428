import { failure, isPlainObject, JSON_RPC_ERROR, type JsonRpcFailure, type JsonRpcId } from './jsonrpc.js'
import { SUPPORTED_MODERN_PROTOCOL_VERSIONS } from './protocol.js'

/**
 * The stateless 2026-07-28 revision: the per-request `_meta` envelope, the `MCP-Protocol-Version`,
 * `Mcp-Method` and `Mcp-Name` headers checked against the body, and the result decoration
 * (`resultType`, caching hints, the server's identity).
 */

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion'
const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo'
const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel'
const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo'
/** Revision identifiers are ISO dates: from this one on, a revision is stateless. */
const FIRST_MODERN_VERSION = '2026-07-28'
const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'])

/** Who may keep a 2026-07-28 result: any cache (`public`) or only the requesting client (`private`). */
export type MCPCacheScope = 'public' | 'private'

/** The 2026-07-28 caching hint of a result. */
export interface MCPCacheHint {
  /** How long the result stays fresh, in milliseconds (0: revalidate every time). */
  readonly ttlMs: number
  readonly cacheScope: MCPCacheScope
}

/** The transport headers a 2026-07-28 request is checked against (absent when not sent). */
export interface MCPRequestHeaders {
  /** `MCP-Protocol-Version`. */
  readonly protocolVersion?: string
  /** `Mcp-Method`. */
  readonly method?: string
  /** `Mcp-Name` (for `resources/read`: the URI, plain or `=?base64?…?=`). */
  readonly name?: string
}

/** A message refused before dispatch: the HTTP status to answer with and the JSON-RPC error. */
export interface Refusal {
  readonly status: 400 | 404
  readonly body: JsonRpcFailure
}

/** Methods of the 2026-07-28 revision this server implements (`initialize` and `ping` are gone). */
export const MODERN_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
])

const CACHEABLE: ReadonlySet<string> = new Set([
  'server/discover',
  'resources/list',
  'resources/templates/list',
  'resources/read',
])

function metaOf(params: unknown): Record<string, unknown> | undefined {
  const meta = isPlainObject(params) ? params._meta : undefined
  return isPlainObject(meta) ? meta : undefined
}

/** The message claims the per-request envelope: `params._meta` carries the protocol-version key. */
export function claimsEnvelope(message: unknown): boolean {
  if (!isPlainObject(message)) return false
  const meta = metaOf(message.params)
  return meta !== undefined && Object.hasOwn(meta, META_PROTOCOL_VERSION)
}

function claimedVersion(params: unknown): unknown {
  return metaOf(params)?.[META_PROTOCOL_VERSION]
}

/** A well-formed envelope naming a 2026-07-28-or-later revision (only that turns `initialize` modern). */
export function carriesModernClaim(params: unknown): boolean {
  const meta = metaOf(params)
  const version = meta?.[META_PROTOCOL_VERSION]
  return (
    meta !== undefined &&
    typeof version === 'string' &&
    version >= FIRST_MODERN_VERSION &&
    envelopeIssue(meta) === undefined
  )
}

/** The first problem of a claimed envelope, or undefined when it is valid. */
function envelopeIssue(meta: Record<string, unknown>): { key: string; problem: string } | undefined {
  if (!Object.hasOwn(meta, META_CLIENT_CAPABILITIES))
    return { key: META_CLIENT_CAPABILITIES, problem: 'missing' }
  if (typeof meta[META_PROTOCOL_VERSION] !== 'string') {
    return { key: META_PROTOCOL_VERSION, problem: 'expected a protocol version string' }
  }
  if (!isPlainObject(meta[META_CLIENT_CAPABILITIES])) {
    return { key: META_CLIENT_CAPABILITIES, problem: 'expected an object' }
  }
  const info = meta[META_CLIENT_INFO]
  if (
    info !== undefined &&
    !(isPlainObject(info) && typeof info.name === 'string' && typeof info.version === 'string')
  ) {
    return { key: META_CLIENT_INFO, problem: 'expected an implementation with name and version' }
  }
  const level = meta[META_LOG_LEVEL]
  if (level !== undefined && !(typeof level === 'string' && LOG_LEVELS.has(level))) {
    return { key: META_LOG_LEVEL, problem: 'expected a logging level' }
  }
  return undefined
}

function refusal(status: 400 | 404, id: JsonRpcId | null, code: number, message: string, data?: unknown) {
  return { status, body: failure(id, code, message, data) }
}

function mismatch(id: JsonRpcId | null, header: string, body: string): Refusal {
  return refusal(
    400,
    id,
    JSON_RPC_ERROR.HEADER_MISMATCH,
    `Bad Request: the request headers and body disagree: ${body}`,
    {
      mismatch: { header, body },
    },
  )
}

/** Decodes an `Mcp-Name` value: plain, or `=?base64?<canonical base64 of UTF-8>?=`; undefined when malformed. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith('=?base64?') && value.endsWith('?='))) return value
  const encoded = value.slice('=?base64?'.length, -'?='.length)
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(encoded)) return undefined
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(encoded, 'base64'))
  } catch {
    return undefined
  }
}

/**
 * The checks of a 2026-07-28 request before dispatch, in the order the official SDK answers them:
 * a malformed envelope (400 -32602), a version or method header that disagrees with the body (400
 * -32020), an unsupported revision (400 -32022 with `supported` and `requested`), a missing version or
 * method header, a missing or disagreeing `Mcp-Name` on `resources/read` (400 -32020), and a method this
 * revision does not define, `initialize` and `ping` included (404 -32601).
 */
export function checkModernRequest(
  id: JsonRpcId,
  method: string,
  params: unknown,
  headers: MCPRequestHeaders,
): Refusal | undefined {
  const meta = metaOf(params) ?? {}
  const issue = envelopeIssue(meta)
  if (issue !== undefined) {
    return refusal(
      400,
      id,
      JSON_RPC_ERROR.INVALID_PARAMS,
      `Invalid _meta envelope for protocol revision 2026-07-28: ${issue.key}: ${issue.problem}`,
      { envelope: issue },
    )
  }
  const version = meta[META_PROTOCOL_VERSION] as string
  if (headers.protocolVersion !== undefined && headers.protocolVersion !== version) {
    return mismatch(
      id,
      headers.protocolVersion,
      `the body envelope names protocol version ${version} but the MCP-Protocol-Version header names ${headers.protocolVersion}`,
    )
  }
  if (headers.method !== undefined && headers.method !== method) {
    return mismatch(
      id,
      headers.method,
      `the body names method ${method} but the Mcp-Method header names ${headers.method}`,
    )
  }
  if (!SUPPORTED_MODERN_PROTOCOL_VERSIONS.includes(version)) return unsupportedModern(id, version)
  if (headers.protocolVersion === undefined) {
    return mismatch(
      id,
      '(missing)',
      `the body envelope names protocol version ${version} but the required MCP-Protocol-Version header is absent`,
    )
  }
  if (headers.method === undefined) {
    return mismatch(
      id,
      '(missing)',
      `the body names method ${method} but the required Mcp-Method header is absent`,
    )
  }
  const nameRefusal = method === 'resources/read' ? checkName(id, params, headers.name) : undefined
  if (nameRefusal !== undefined) return nameRefusal
  if (!MODERN_METHODS.has(method))
    return refusal(404, id, JSON_RPC_ERROR.METHOD_NOT_FOUND, 'Method not found')
  return undefined
}

function checkName(id: JsonRpcId, params: unknown, header: string | undefined): Refusal | undefined {
  const uri = isPlainObject(params) ? params.uri : undefined
  if (typeof uri !== 'string') return undefined
  if (header === undefined) {
    return mismatch(
      id,
      '(missing)',
      `the body carries params.uri="${uri}" but the required Mcp-Name header is absent`,
    )
  }
  const decoded = decodeHeaderValue(header)
  if (decoded === undefined)
    return mismatch(id, header, 'the Mcp-Name header carries an invalid Base64 sentinel value')
  if (decoded !== uri) {
    return mismatch(
      id,
      header,
      `the body carries params.uri="${uri}" but the Mcp-Name header names "${decoded}"`,
    )
  }
  return undefined
}

/** A 2026-07-28 notification: only its version and method headers are cross-checked (then 202). */
export function checkModernNotification(method: string, params: unknown, headers: MCPRequestHeaders) {
  const version = claimedVersion(params)
  if (typeof version !== 'string') {
    return refusal(
      400,
      null,
      JSON_RPC_ERROR.INVALID_PARAMS,
      `Invalid _meta envelope for protocol revision 2026-07-28: ${META_PROTOCOL_VERSION}: expected a protocol version string`,
    )
  }
  if (headers.protocolVersion !== undefined && headers.protocolVersion !== version) {
    return mismatch(
      null,
      headers.protocolVersion,
      `the notification envelope names protocol version ${version}`,
    )
  }
  if (headers.method !== undefined && headers.method !== method) {
    return mismatch(null, headers.method, `the notification body names method ${method}`)
  }
  return undefined
}

export function unsupportedModern(id: JsonRpcId | null, requested: string): Refusal {
  return refusal(
    400,
    id,
    JSON_RPC_ERROR.UNSUPPORTED_PROTOCOL_VERSION,
    `Unsupported protocol version: ${requested}`,
    { supported: [...SUPPORTED_MODERN_PROTOCOL_VERSIONS], requested },
  )
}

/** A request without the envelope under a 2026-07-28 `MCP-Protocol-Version` header (400 -32602). */
export function missingEnvelope(id: JsonRpcId | null, headerVersion: string, params: unknown): Refusal {
  const missing = metaOf(params) === undefined ? ['_meta'] : [META_PROTOCOL_VERSION]
  return refusal(
    400,
    id,
    JSON_RPC_ERROR.INVALID_PARAMS,
    `Invalid params: the MCP-Protocol-Version header names protocol revision ${headerVersion}, but the request is missing the required per-request envelope key(s): ${missing.join(', ')}`,
    { envelope: { missing } },
  )
}

/** `initialize` is the legacy handshake: sent with a 2026-07-28 version header it contradicts it. */
export function initializeWithModernHeader(id: JsonRpcId, headerVersion: string): Refusal {
  return mismatch(
    id,
    headerVersion,
    'an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header',
  )
}

/**
 * A 2026-07-28 result: `resultType: "complete"`, the caching hint on cacheable results (`ttlMs`,
 * `cacheScope`), and the server's identity in `_meta`.
 */
export function modernResult(
  method: string,
  result: Readonly<Record<string, unknown>>,
  cache: MCPCacheHint,
  serverInfo: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return {
    ...result,
    resultType: 'complete',
    ...(CACHEABLE.has(method) ? { ttlMs: cache.ttlMs, cacheScope: cache.cacheScope } : {}),
    _meta: { [META_SERVER_INFO]: serverInfo },
  }
}
