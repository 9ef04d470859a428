import type { ProblemInit } from '@portcullis/http/problem'
import type { Context } from 'hono'

/** A path whose percent-encoding does not decode: 400, the path never echoed. */
export const MALFORMED_URL: ProblemInit = {
  status: 400,
  code: 'request.malformed_url',
  detail: 'The request URL is malformed',
}

/** Whether every segment of the request's raw path percent-decodes. */
function pathDecodes(url: string): boolean {
  try {
    for (const segment of new URL(url).pathname.split('/')) decodeURIComponent(segment)
    return true
  } catch {
    return false
  }
}

/**
 * The route's path parameters, decoded; `undefined` when one does not percent-decode. Hono hands such a
 * parameter over with its escapes kept (`%E0%A4%A` stays as is) rather than refusing it, so a parameter
 * still holding a `%` (a decoded `%25`, or a failed decoding) is told apart by decoding the raw path
 * once: only then, so a request whose parameters hold no `%` pays one `includes` per parameter.
 */
export function routeParams(c: Context): Record<string, string> | undefined {
  const params = c.req.param() as Record<string, string>
  for (const key in params) {
    if (params[key]?.includes('%') === true) return pathDecodes(c.req.raw.url) ? params : undefined
  }
  return params
}
