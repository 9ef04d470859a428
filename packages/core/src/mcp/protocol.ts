/** MCP protocol revisions this server speaks (initialize era), latest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = Object.freeze([
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
])

export const LATEST_PROTOCOL_VERSION = '2025-11-25'

/** Assumed when a request carries no `MCP-Protocol-Version` header (Streamable HTTP rule). */
export const DEFAULT_NEGOTIATED_PROTOCOL_VERSION = '2025-03-26'

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
