// The MCP `resources/read` requests the adapter benches send, in both protocol eras, and the check that a
// read answers the resource's text before it is measured (a JSON-RPC error is a 200 too).
import type { HttpCase } from './http-load.js'

const ACCEPT = 'application/json, text/event-stream'

/** A `resources/read` of `uri` on the initialize-era revision `2025-11-25` (what the 1.x SDK serves). */
export function legacyRead(name: string, url: string, uri: string): HttpCase {
  return {
    name,
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } }),
  }
}

/** A `resources/read` of `uri` on the stateless revision `2026-07-28` (what the 2.x SDK handler serves). */
export function statelessRead(name: string, url: string, uri: string): HttpCase {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
  }
  return {
    name,
    url,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'resources/read',
      'mcp-name': uri,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'resources/read',
      params: { uri, _meta: meta },
    }),
  }
}

/** Throws unless one read of `target` answers 200 with `text` as the first content's text. */
export async function assertReadAnswers(target: HttpCase, text: string): Promise<void> {
  const answer = await fetch(target.url, {
    method: target.method ?? 'POST',
    ...(target.headers === undefined ? {} : { headers: target.headers }),
    ...(target.body === undefined ? {} : { body: target.body }),
  })
  const raw = await answer.text()
  let parsed: { result?: { contents?: { text?: string }[] } } | undefined
  try {
    parsed = JSON.parse(raw) as typeof parsed
  } catch {
    parsed = undefined
  }
  if (answer.status !== 200 || parsed?.result?.contents?.[0]?.text !== text) {
    throw new Error(`${target.name}: resources/read does not answer the resource (${answer.status}): ${raw}`)
  }
}
