import { endpointChallenges } from '@portcullis/http/mcp'
import type { Response } from 'express'

export type { ProtectedResourceOptions } from '@portcullis/http/mcp'
export { protectedResource } from '@portcullis/http/mcp'

/**
 * RFC 6750 / RFC 9728 challenges on the endpoint's own refusals, added when the head of a 401 or 403 is
 * written (whoever wrote it: the endpoint's policy, guards or the application's own middleware).
 */
export function decorateChallenges(
  response: Response,
  metadataUrl: string | undefined,
  scopes: readonly string[],
): void {
  const original = response.writeHead
  const patched = function (this: Response, ...args: Parameters<Response['writeHead']>) {
    const status = args[0]
    if (!response.headersSent) {
      const existing = response.getHeader('www-authenticate')
      const values = endpointChallenges(
        status,
        existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)],
        metadataUrl,
        scopes,
      )
      if (values !== undefined) {
        response.setHeader('WWW-Authenticate', values.length === 1 ? (values[0] as string) : values)
      }
    }
    return original.apply(this, args)
  } as Response['writeHead']
  response.writeHead = patched
}
