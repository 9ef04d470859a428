import { Buffer, isUtf8 } from 'node:buffer'
import { InvalidInputError } from '../errors/index.js'

/** What a handler produced for one in-process read: status, content type and the body. */
export interface MCPResourceResponse {
  readonly status: number
  /** The response `Content-Type` header, parameters included; absent when the handler set none. */
  readonly contentType?: string
  /** The raw body bytes, or the body as text when the adapter has it as a string already (never re-encoded). */
  readonly body: Uint8Array | string
}

export interface TextResourceContents {
  readonly uri: string
  readonly mimeType: string
  readonly text: string
}

export interface BlobResourceContents {
  readonly uri: string
  readonly mimeType: string
  /** Base64 of the raw bytes. */
  readonly blob: string
}

export type ResourceContents = TextResourceContents | BlobResourceContents

const TEXT_TYPES = new Set([
  'application/json',
  'application/javascript',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/x-ndjson',
])

/** The lower-cased `type/subtype` of a Content-Type header, or undefined when absent or blank. */
export function mediaTypeEssence(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined
  const end = contentType.indexOf(';')
  const essence = (end === -1 ? contentType : contentType.slice(0, end)).trim().toLowerCase()
  return essence.length === 0 ? undefined : essence
}

/** Text-compatible media types: `text/*`, JSON, `+json`, `+xml`, JavaScript, XML and YAML. */
export function isTextMediaType(essence: string): boolean {
  return (
    essence.startsWith('text/') ||
    TEXT_TYPES.has(essence) ||
    essence.endsWith('+json') ||
    essence.endsWith('+xml')
  )
}

function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/** The body as a string when it is valid UTF-8 (a leading byte order mark removed), otherwise undefined. */
export function decodeUtf8(body: Uint8Array): string | undefined {
  if (!isUtf8(body)) return undefined
  // toString() without arguments is Node's direct UTF-8 path; a Buffer needs no view made first
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)
  return withoutByteOrderMark(bytes.toString())
}

export interface ContentsOptions {
  /** The resource's declared mime type: used when the handler set no content type. */
  readonly declaredMimeType?: string
  readonly maxBlobBytes: number
}

/**
 * Converts a successful handler response into one contents item for `uri`. The media type is the
 * handler's `Content-Type` (parameters stripped), else the declared mime type, else
 * `application/octet-stream`. Text-compatible types whose bytes are valid UTF-8 become `text` (JSON
 * stays serialized in the string); everything else becomes a base64 `blob`, refused over
 * `maxBlobBytes` with `InvalidInputError` `mcp.blob_too_large`.
 */
export function toResourceContents(
  uri: string,
  response: Pick<MCPResourceResponse, 'contentType' | 'body'>,
  options: ContentsOptions,
): ResourceContents {
  const mimeType =
    mediaTypeEssence(response.contentType) ??
    mediaTypeEssence(options.declaredMimeType) ??
    'application/octet-stream'
  const { body } = response
  if (isTextMediaType(mimeType)) {
    const text = typeof body === 'string' ? withoutByteOrderMark(body) : decodeUtf8(body)
    if (text !== undefined) return { uri, mimeType, text }
  }
  const bytes = typeof body === 'string' ? Buffer.from(body) : body
  if (bytes.byteLength > options.maxBlobBytes) {
    throw new InvalidInputError(
      'mcp.blob_too_large',
      `resource body of ${bytes.byteLength} bytes exceeds maxBlobBytes (${options.maxBlobBytes})`,
    )
  }
  const { buffer, byteOffset, byteLength } = bytes
  return { uri, mimeType, blob: Buffer.from(buffer, byteOffset, byteLength).toString('base64') }
}

/**
 * The handler's error payload for `data.content`: parsed JSON for JSON types, the text for other valid
 * UTF-8 bodies, `null` for an empty or binary body.
 */
export function errorContent(response: Pick<MCPResourceResponse, 'contentType' | 'body'>): unknown {
  const { body } = response
  if ((typeof body === 'string' ? body.length : body.byteLength) === 0) return null
  const text = typeof body === 'string' ? withoutByteOrderMark(body) : decodeUtf8(body)
  if (text === undefined) return null
  const essence = mediaTypeEssence(response.contentType)
  if (essence === 'application/json' || essence?.endsWith('+json')) {
    try {
      return JSON.parse(text) as unknown
    } catch {
      return text
    }
  }
  return text
}
