import type { MCPResourceResponse } from '@portcullis/core/mcp'

/** A problem document standing in for a route's answer (timeouts, oversize bodies, unhandled errors). */
export function resourceProblem(status: number, title: string): MCPResourceResponse {
  return {
    status,
    contentType: 'application/problem+json',
    body: new TextEncoder().encode(JSON.stringify({ type: 'about:blank', title, status })),
  }
}

/** The status an error carries (`status` / `statusCode`, 4xx or 5xx), else 500. */
export function statusOf(error: unknown): number {
  const candidate =
    (error as { status?: unknown; statusCode?: unknown } | null)?.status ??
    (error as { statusCode?: unknown } | null)?.statusCode
  return typeof candidate === 'number' && Number.isInteger(candidate) && candidate >= 400 && candidate <= 599
    ? candidate
    : 500
}
