/**
 * What kind of JWT a workload verifier accepts. `at+jwt` (RFC 9068 access tokens) is the default; the
 * presets cover plain `JWT` workload tokens whose scope claim is optional.
 */
export interface WorkloadTokenProfile {
  readonly name: string
  /** Accepted `typ` values, compared case-insensitively and without an `application/` prefix. */
  readonly tokenTypes: readonly string[]
  /** Whether a token without a `typ` header is accepted. */
  readonly typOptional: boolean
  /** Whether the scope claim must be present (and non-empty). */
  readonly scopeRequired: boolean
  /** Claims besides `iss sub aud iat exp` that must be present as strict identifiers. */
  readonly requiredClaims: readonly string[]
  /** Key-hint headers this issuer is known to send that are tolerated and ignored (never used to find keys). */
  readonly toleratedHeaders: readonly string[]
}

/** RFC 9068 JWT access tokens: `typ` must be `at+jwt`; `client_id`, `jti` and the scope claim are required. */
export const accessTokenProfile: WorkloadTokenProfile = Object.freeze({
  name: 'at+jwt',
  tokenTypes: ['at+jwt'],
  typOptional: false,
  scopeRequired: true,
  requiredClaims: ['client_id', 'jti'],
  toleratedHeaders: [],
})

/**
 * GitHub Actions OIDC tokens: `typ: JWT`, `jti` and `repository` required, no scope claim. GitHub puts
 * an `x5t` thumbprint in the header; it is tolerated as a hint and ignored (keys come only from the JWKS).
 */
export const githubActionsProfile: WorkloadTokenProfile = Object.freeze({
  name: 'github-actions',
  tokenTypes: ['jwt'],
  typOptional: true,
  scopeRequired: false,
  requiredClaims: ['jti', 'repository'],
  toleratedHeaders: ['x5t'],
})

/** Kubernetes projected service-account tokens: no `typ` header, no scope claim. */
export const kubernetesServiceAccountProfile: WorkloadTokenProfile = Object.freeze({
  name: 'kubernetes-service-account',
  tokenTypes: ['jwt'],
  typOptional: true,
  scopeRequired: false,
  requiredClaims: [],
  toleratedHeaders: [],
})
