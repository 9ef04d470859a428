// The fetch form: Portcullis as `(request: Request) => Promise<Response>` handlers, for Next.js App
// Router route handlers, `Bun.serve` and `Deno.serve`.

export type { ForwardedClientAddressOptions, WebClientAddress } from '@portcullis/http/web'
export {
  forwardedClientAddress,
  headerClientAddress,
  nodeSocketClientAddress,
  readWebRequestBody as readBody,
} from '@portcullis/http/web'
export type {
  FetchRoute,
  FetchRouteContext,
  FetchRouteHandler,
  FetchSecurity,
  FetchSecurityOptions,
} from './fetch-security.js'
export { createFetchSecurity } from './fetch-security.js'
