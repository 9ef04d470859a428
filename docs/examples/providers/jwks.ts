// One JWKS provider per process, shared by every JWT verifier (workload JWTs, IAP, OIDC). Each mechanism
// registers its pinned (issuer, JWKS URL, algorithms) source with it; keys are fetched and imported once.
import { CachedJWKSProvider } from '@portcullis/core/jwks'

// #region jwks-the-shared-key-provider
export const jwks = new CachedJWKSProvider({
  // Freshness: Cache-Control max-age clamped to [30 s, 24 h]; 15 min when the IdP sends none.
  defaultMaxAgeSeconds: 900,
  // Unknown kid: at most one forced refresh per 30 s per source, then a negative cache.
  unknownKidCooldownSeconds: 30,
  // IdP down after expiry: keep verifying with keys we already know for 5 more minutes, then 503.
  staleIfErrorSeconds: 300,
})

/** At startup, after every mechanism registered its source: fail fast if a key set is unreachable. */
export async function start(): Promise<void> {
  await jwks.warmup()
}
// #endregion jwks-the-shared-key-provider

/** At shutdown: aborts in-flight refreshes. Idempotent. */
export async function stop(): Promise<void> {
  await jwks.close()
}

/** Stale answers mean an IdP outage is being ridden out: alert on them. */
export function jwksMetrics(): Record<string, number> {
  return { ...jwks.stats() }
}
