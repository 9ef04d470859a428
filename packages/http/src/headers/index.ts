// The response header baseline every adapter sends, and how an application overrides it.
export type { SecurityHeaderOverrides } from './security-headers.js'
export { securityHeaderBaseline, securityHeaders } from './security-headers.js'
