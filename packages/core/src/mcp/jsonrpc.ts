/** JSON-RPC 2.0 envelope types and validation, as tightened by MCP (ids are strings or integers, never null). */

export type JsonRpcId = string | number

export interface JsonRpcErrorObject {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

export interface JsonRpcSuccess {
  readonly jsonrpc: '2.0'
  readonly id: JsonRpcId
  readonly result: Readonly<Record<string, unknown>>
}

export interface JsonRpcFailure {
  readonly jsonrpc: '2.0'
  readonly id: JsonRpcId | null
  readonly error: JsonRpcErrorObject
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure

export const JSON_RPC_ERROR = Object.freeze({
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** 2026-07-28: an `MCP-Protocol-Version`, `Mcp-Method` or `Mcp-Name` header disagrees with the body. */
  HEADER_MISMATCH: -32020,
  /** 2026-07-28: the request names a protocol revision this server does not speak. */
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
})

/** Thrown by method implementations; turned into a JSON-RPC error response by the dispatcher. */
export class RpcError extends Error {
  readonly code: number
  readonly data: unknown

  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.name = 'RpcError'
    this.code = code
    this.data = data
  }
}

export type Classified =
  | {
      readonly kind: 'request'
      readonly id: JsonRpcId
      readonly method: string
      readonly params: Readonly<Record<string, unknown>> | undefined
      readonly paramsValid: boolean
    }
  | { readonly kind: 'notification'; readonly method: string; readonly params: unknown }
  | { readonly kind: 'client-response' }
  | { readonly kind: 'invalid'; readonly id: JsonRpcId | null; readonly message: string }

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isValidId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value))
}

/** Sorts one parsed message into request, notification, client response or invalid envelope. */
export function classify(message: unknown): Classified {
  if (!isPlainObject(message)) return { kind: 'invalid', id: null, message: 'Request must be a JSON object' }
  const hasId = Object.hasOwn(message, 'id')
  const id = message.id
  if (hasId && !isValidId(id)) {
    return {
      kind: 'invalid',
      id: null,
      message: id === null ? 'Request id must not be null' : 'Request id must be a string or an integer',
    }
  }
  const echo = hasId ? (id as JsonRpcId) : null
  if (message.jsonrpc !== '2.0') {
    return { kind: 'invalid', id: echo, message: "Missing or invalid 'jsonrpc' field; must be '2.0'" }
  }
  const method = message.method
  if (
    method === undefined &&
    hasId &&
    (Object.hasOwn(message, 'result') || Object.hasOwn(message, 'error'))
  ) {
    return { kind: 'client-response' }
  }
  if (typeof method !== 'string' || method.length === 0) {
    return { kind: 'invalid', id: echo, message: "Missing or invalid 'method' field" }
  }
  if (!hasId) return { kind: 'notification', method, params: message.params }
  const params = message.params
  const paramsValid = params === undefined || isPlainObject(params)
  return {
    kind: 'request',
    id: id as JsonRpcId,
    method,
    params: isPlainObject(params) ? params : undefined,
    paramsValid,
  }
}

export function success(id: JsonRpcId, result: Readonly<Record<string, unknown>>): JsonRpcSuccess {
  return { jsonrpc: '2.0', id, result }
}

export function failure(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcFailure {
  return {
    jsonrpc: '2.0',
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  }
}
