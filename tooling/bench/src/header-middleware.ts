// How each framework's own security-header middleware is configured to send the headers Portcullis sends
// by default (`securityHeaderBaseline` of @portcullis/http/headers): a benchmark baseline, checked at run
// time by `assertSameHeaders` before anything is measured (a value that drifts fails the bench).

/** The Content-Security-Policy directives of the baseline. */
const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  objectSrc: ["'none'"],
}

/**
 * `helmet(options)` and `fastify.register(helmet, options)` (`@fastify/helmet` passes them to helmet):
 * the seven baseline headers and nothing else. `xPoweredBy: true` removes Express's `X-Powered-By`, as
 * Portcullis does (Fastify sends none).
 */
export const HELMET_SAME_HEADERS = Object.freeze({
  contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES },
  crossOriginEmbedderPolicy: false,
  crossOriginOpenerPolicy: { policy: 'same-origin' },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  originAgentCluster: false,
  referrerPolicy: { policy: 'no-referrer' },
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
  xContentTypeOptions: true,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: { action: 'deny' },
  xPermittedCrossDomainPolicies: false,
  xPoweredBy: true,
  xXssProtection: false,
} as const)

/** `secureHeaders(options)` of `hono/secure-headers`: the seven baseline headers and nothing else. */
export const SECURE_HEADERS_SAME_HEADERS = Object.freeze({
  contentSecurityPolicy: CSP_DIRECTIVES,
  crossOriginEmbedderPolicy: false,
  crossOriginOpenerPolicy: 'same-origin',
  crossOriginResourcePolicy: 'same-origin',
  originAgentCluster: false,
  referrerPolicy: 'no-referrer',
  strictTransportSecurity: 'max-age=31536000; includeSubDomains',
  xContentTypeOptions: 'nosniff',
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: 'DENY',
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
  removePoweredBy: true,
} as const)
