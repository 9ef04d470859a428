import { type ApiKeyService, type ApiKeyUsageRecorder, apiKey } from '@portcullis/core/api-keys'
import type { AuthenticationMechanism } from '@portcullis/core/authentication'
import type { JWKSProvider } from '@portcullis/core/jwks'
import { workloadJwt } from '@portcullis/core/workload-jwt'
import {
  DEMO_API_AUDIENCE,
  DEMO_WORKLOAD_ISSUER,
  DEMO_WORKLOAD_JWKS_PATH,
} from '../workload/workload-signer.js'

export const API_KEY_MECHANISM = 'api-key'
export const WORKLOAD_MECHANISM = 'workload'

/** `X-API-Key`: keys issued on the API-key page or by the CLI; one store lookup per request. */
export function apiKeyMechanism(service: ApiKeyService, usage: ApiKeyUsageRecorder): AuthenticationMechanism {
  return apiKey({ service, usage, name: API_KEY_MECHANISM })
}

/**
 * `Authorization: Bearer <JWT>` from the demo workload issuer: issuer, audience and JWKS URL pinned, ES256
 * only, `at+jwt`. The keys are fetched from the app's own JWKS URL through the shared JWKS provider, as a
 * verifier in another service would fetch them. `shareBearerHeader` leaves other bearer tokens (local
 * access tokens, later) to their own mechanism.
 */
export function workloadMechanism(jwks: JWKSProvider, selfUrl: string): AuthenticationMechanism {
  return workloadJwt({
    name: WORKLOAD_MECHANISM,
    issuer: DEMO_WORKLOAD_ISSUER,
    audience: DEMO_API_AUDIENCE,
    jwksUri: `${selfUrl}${DEMO_WORKLOAD_JWKS_PATH}`,
    jwks,
    algorithms: ['ES256'],
    shareBearerHeader: true,
    maxLifetimeSeconds: 3600,
    cache: { maxEntries: 10_000, maxTtlSeconds: 300 },
  })
}
