import type { LocalRequestInfo } from '@portcullis/core/local-accounts'
import type { Request } from 'express'

/** What the core service needs to know about the request (client address, user agent). */
export function requestInfo(request: Request): LocalRequestInfo {
  return {
    peerAddress: request.socket.remoteAddress,
    forwardedFor: request.headers['x-forwarded-for'],
    userAgent: request.headers['user-agent'],
  }
}
