/** MCP protocol revisions of the initialize era this server speaks, latest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
])

export const LATEST_PROTOCOL_VERSION = '2025-11-25'

/**
 * Stateless MCP revisions this server speaks (no `initialize`; every request carries its protocol version
 * and client capabilities in `params._meta`). Never offered by `initialize`.
 */
export const SUPPORTED_MODERN_PROTOCOL_VERSIONS: readonly string[] = Object.freeze(['2026-07-28'])

/** Assumed when a request carries no `MCP-Protocol-Version` header (Streamable HTTP rule). */
export const DEFAULT_NEGOTIATED_PROTOCOL_VERSION = '2025-03-26'

/** True for an initialize-era revision this server speaks. */
export function isSupportedProtocolVersion(version: string): boolean {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(version)
}

/** Echoes a supported requested version; answers the latest otherwise (never an error). */
export function negotiateProtocolVersion(requested: unknown): string {
  return typeof requested === 'string' && isSupportedProtocolVersion(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION
}

/** JSON-RPC batches (array bodies) were legal only in 2025-03-26. */
export function allowsBatches(protocolVersion: string | undefined): boolean {
  return (protocolVersion ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION) === '2025-03-26'
}
