// The Web-standard path of the HTTP layer, for adapters over `Request` and `Response` (Hono, fetch
// handlers): the credential source, bodies with limits from a `ReadableStream`, neutral answers and
// problems as `Response`s, the exchange of the generated routes, and in-process reads through the
// application's own fetch handler. Nothing here imports `node:http`.
export type { WebBodySource } from './body.js'
export { readWebBody, readWebRequestBody } from './body.js'
export type { ForwardedClientAddressOptions, WebClientAddress } from './client-address.js'
export {
  forwardedClientAddress,
  headerClientAddress,
  nodeSocketClientAddress,
} from './client-address.js'
export type { WebRequestHead } from './credential-source.js'
export { pathOf, WebCredentialSource } from './credential-source.js'
export type { WebExchange, WebExchangeInit } from './exchange.js'
export { webExchange, webRouteRequest } from './exchange.js'
export type { FetchHandler, FetchReadLimits, KeptBody } from './in-process.js'
export { callerOf, inProcessRequest, readThroughFetch } from './in-process.js'
export { answerResponse, problemResponse } from './response.js'
