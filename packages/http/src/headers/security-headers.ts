/**
 * The response header baseline. Values suit JSON APIs and simple same-origin pages; override any header
 * (or drop it with `false`) through `createSecurity({ headers })`.
 */
export const securityHeaderBaseline: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy':
    "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'",
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Referrer-Policy': 'no-referrer',
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
})

export type SecurityHeaderOverrides = Readonly<Record<string, string | false>>

/** Merges overrides into the baseline (case-insensitive names); `false` removes a header. */
export function securityHeaders(
  overrides: SecurityHeaderOverrides = {},
): readonly (readonly [string, string])[] {
  const merged = new Map<string, readonly [string, string]>()
  for (const [name, value] of Object.entries(securityHeaderBaseline))
    merged.set(name.toLowerCase(), [name, value])
  for (const [name, value] of Object.entries(overrides)) {
    if (value === false) merged.delete(name.toLowerCase())
    else merged.set(name.toLowerCase(), [name, value])
  }
  return Object.freeze([...merged.values()])
}
