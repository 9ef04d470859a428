export interface FreshnessPolicy {
  /** Used when the response has no `max-age`. */
  readonly defaultMaxAgeSeconds: number
  /** Floor for `max-age`; `no-cache`/`no-store` also get the floor, so they cannot cause refetch storms. */
  readonly minMaxAgeSeconds: number
  /** Ceiling for `max-age`. */
  readonly maxMaxAgeSeconds: number
}

/**
 * How long a fetched key set stays fresh, from the response's `Cache-Control`: `max-age` clamped to the
 * policy's bounds. Remote `stale-while-revalidate` / `stale-if-error` are ignored: staleness is local policy.
 */
export function freshnessSeconds(cacheControl: string | undefined, policy: FreshnessPolicy): number {
  if (cacheControl === undefined) return policy.defaultMaxAgeSeconds
  let maxAge: number | undefined
  for (const raw of cacheControl.split(',')) {
    const directive = raw.trim().toLowerCase()
    if (directive === 'no-store' || directive === 'no-cache') return policy.minMaxAgeSeconds
    const match = /^max-age\s*=\s*"?(\d{1,10})"?$/.exec(directive)
    if (match?.[1] !== undefined && maxAge === undefined) maxAge = Number(match[1])
  }
  if (maxAge === undefined) return policy.defaultMaxAgeSeconds
  return Math.min(policy.maxMaxAgeSeconds, Math.max(policy.minMaxAgeSeconds, maxAge))
}
