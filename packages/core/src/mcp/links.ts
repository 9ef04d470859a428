import { InvalidInputError } from '../errors/index.js'

/** MCP annotations for a resource or content block. */
export interface MCPAnnotations {
  readonly audience?: readonly ('user' | 'assistant')[]
  /** 0 (least important) to 1 (most important). */
  readonly priority?: number
  /** ISO 8601 timestamp. */
  readonly lastModified?: string
}

export interface MCPResourceLinkInit {
  readonly name: string
  readonly uri: string
  readonly mimeType?: string
  readonly title?: string
  readonly description?: string
  /** Raw byte length, before any base64 encoding. */
  readonly size?: number
  readonly annotations?: MCPAnnotations
  readonly meta?: Readonly<Record<string, unknown>>
}

/** The `resource_link` content block (MCP 2025-06-18+). */
export interface ResourceLinkContent {
  readonly type: 'resource_link'
  readonly name: string
  readonly uri: string
  readonly mimeType?: string
  readonly title?: string
  readonly description?: string
  readonly size?: number
  readonly annotations?: MCPAnnotations
  readonly _meta?: Readonly<Record<string, unknown>>
}

export interface MCPBlobResourceInit {
  readonly uri: string
  readonly data: Uint8Array
  /** Default `application/octet-stream`. */
  readonly mimeType?: string
  readonly annotations?: MCPAnnotations
  readonly meta?: Readonly<Record<string, unknown>>
  /** Refuse larger payloads. Default 25 MiB (`DEFAULT_MAX_BLOB_BYTES`). */
  readonly maxBlobBytes?: number
}

/** The embedded `resource` content block carrying a blob; annotations and `_meta` sit on the block. */
export interface EmbeddedBlobContent {
  readonly type: 'resource'
  readonly resource: { readonly uri: string; readonly mimeType: string; readonly blob: string }
  readonly annotations?: MCPAnnotations
  readonly _meta?: Readonly<Record<string, unknown>>
}

export const DEFAULT_MAX_BLOB_BYTES = 25 * 1024 * 1024
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/

function bad(message: string): InvalidInputError {
  return new InvalidInputError('mcp.content_invalid', message)
}

function checkUri(uri: unknown): string {
  if (typeof uri !== 'string' || !URI.test(uri)) throw bad('uri must be an absolute URI with a scheme')
  return uri
}

function checkAnnotations(annotations: MCPAnnotations | undefined): MCPAnnotations | undefined {
  if (annotations === undefined) return undefined
  const { audience, priority, lastModified } = annotations
  if (audience !== undefined && !audience.every((who) => who === 'user' || who === 'assistant')) {
    throw bad('annotations.audience accepts only "user" and "assistant"')
  }
  if (priority !== undefined && !(Number.isFinite(priority) && priority >= 0 && priority <= 1)) {
    throw bad('annotations.priority must be between 0 and 1')
  }
  if (lastModified !== undefined && Number.isNaN(Date.parse(lastModified))) {
    throw bad('annotations.lastModified must be an ISO 8601 timestamp')
  }
  return { ...annotations }
}

function assign<T extends object>(target: T, key: string, value: unknown): T {
  if (value !== undefined) Object.assign(target, { [key]: value })
  return target
}

/**
 * A link a tool returns when the produced bytes are reachable through a resource URI: the client reads
 * them later with `resources/read`, so nothing is inlined. Prefer this over `MCPBlobResource`.
 * Build links to registered resources with `MCPResourceRegistry.link(name)` so they always resolve.
 */
export class MCPResourceLink {
  readonly #block: ResourceLinkContent

  constructor(init: MCPResourceLinkInit) {
    if (typeof init.name !== 'string' || init.name.length === 0) throw bad('name must be a non-empty string')
    const size = init.size
    if (size !== undefined && !(Number.isSafeInteger(size) && size >= 0)) {
      throw bad('size must be a non-negative integer')
    }
    const block = { type: 'resource_link', name: init.name, uri: checkUri(init.uri) }
    assign(block, 'title', init.title)
    assign(block, 'description', init.description)
    assign(block, 'mimeType', init.mimeType)
    assign(block, 'size', size)
    assign(block, 'annotations', checkAnnotations(init.annotations))
    assign(block, '_meta', init.meta === undefined ? undefined : { ...init.meta })
    this.#block = Object.freeze(block as ResourceLinkContent)
  }

  get uri(): string {
    return this.#block.uri
  }

  /** The wire content block for a tool result's `content` array. */
  toContentBlock(): ResourceLinkContent {
    return this.#block
  }

  toJSON(): ResourceLinkContent {
    return this.#block
  }
}

/**
 * Bytes embedded in a tool result, for when they must travel at once (generated on the fly, not
 * addressable). Size-capped: larger payloads are refused with `InvalidInputError` `mcp.blob_too_large`.
 */
export class MCPBlobResource {
  readonly #block: EmbeddedBlobContent
  readonly size: number

  constructor(init: MCPBlobResourceInit) {
    const uri = checkUri(init.uri)
    if (!(init.data instanceof Uint8Array)) throw bad('data must be a Uint8Array')
    const limit = init.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES
    if (!(Number.isSafeInteger(limit) && limit > 0)) throw bad('maxBlobBytes must be a positive integer')
    if (init.data.byteLength > limit) {
      throw new InvalidInputError(
        'mcp.blob_too_large',
        `blob of ${init.data.byteLength} bytes exceeds maxBlobBytes (${limit})`,
      )
    }
    this.size = init.data.byteLength
    const resource = {
      uri,
      mimeType: init.mimeType ?? 'application/octet-stream',
      blob: Buffer.from(init.data.buffer, init.data.byteOffset, init.data.byteLength).toString('base64'),
    }
    const block = { type: 'resource', resource: Object.freeze(resource) }
    assign(block, 'annotations', checkAnnotations(init.annotations))
    assign(block, '_meta', init.meta === undefined ? undefined : { ...init.meta })
    this.#block = Object.freeze(block as EmbeddedBlobContent)
  }

  /** The wire content block for a tool result's `content` array. */
  toContentBlock(): EmbeddedBlobContent {
    return this.#block
  }

  toJSON(): EmbeddedBlobContent {
    return this.#block
  }

  /** Keeps megabytes of base64 out of logs. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MCPBlobResource { uri: ${JSON.stringify(this.#block.resource.uri)}, mimeType: ${JSON.stringify(this.#block.resource.mimeType)}, size: ${this.size} }`
  }
}
