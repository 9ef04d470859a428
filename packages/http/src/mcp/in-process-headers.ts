/**
 * Headers never copied from the MCP request into the in-process GET of a resource read: hop-by-hop and
 * body headers, conditional and range headers (a read is never a 304 or a partial), content negotiation
 * that could pick compression or SSE, and MCP transport headers.
 */
export const IN_PROCESS_DROPPED_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'connection',
  'content-length',
  'content-type',
  'content-encoding',
  'expect',
  'if-match',
  'if-modified-since',
  'if-none-match',
  'if-range',
  'if-unmodified-since',
  'keep-alive',
  'last-event-id',
  'mcp-method',
  'mcp-name',
  'mcp-protocol-version',
  'mcp-session-id',
  'proxy-connection',
  'range',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])

/**
 * The headers of the in-process GET of a resource read, from the caller's raw header list: every header
 * but the dropped ones, repeated headers kept as lists (so a duplicated credential stays malformed), and
 * `Accept: *\/*`.
 */
export function inProcessHeaders(rawHeaders: readonly string[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { accept: '*/*' }
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] as string).toLowerCase()
    if (IN_PROCESS_DROPPED_HEADERS.has(name)) continue
    const value = rawHeaders[index + 1] as string
    const present = headers[name]
    if (present === undefined) headers[name] = value
    else if (Array.isArray(present)) present.push(value)
    else headers[name] = [present, value]
  }
  return headers
}
