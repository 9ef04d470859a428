import type { AuthenticationMechanism } from '../authentication/mechanism.js'
import type { JWKSAlgorithm } from '../jwks/jwks-provider.js'
import { githubActionsProfile, kubernetesServiceAccountProfile } from './token-profiles.js'
import { type WorkloadJwtOptions, workloadJwt } from './workload-jwt-mechanism.js'

export const GITHUB_ACTIONS_ISSUER = 'https://token.actions.githubusercontent.com'
export const GITHUB_ACTIONS_JWKS_URI = 'https://token.actions.githubusercontent.com/.well-known/jwks'

type PresetOptions = Omit<WorkloadJwtOptions, 'profile' | 'issuer' | 'jwksUri'>

/**
 * GitHub Actions OIDC tokens (`permissions: id-token: write`): issuer and JWKS URL pinned to GitHub,
 * RS256, plain `JWT` profile. The principal id is the `sub` claim (`repo:<owner>/<repo>:...`); set
 * `audience` to the value your workflow requests. `issuer`/`jwksUri` may be overridden for GHES.
 */
export function githubActionsOidc(
  options: PresetOptions & { readonly issuer?: string; readonly jwksUri?: string },
): AuthenticationMechanism {
  return workloadJwt({
    name: 'github-actions',
    algorithms: ['RS256'],
    ...options,
    issuer: options.issuer ?? GITHUB_ACTIONS_ISSUER,
    jwksUri: options.jwksUri ?? GITHUB_ACTIONS_JWKS_URI,
    profile: githubActionsProfile,
  })
}

/**
 * Kubernetes projected service-account tokens: the cluster's issuer and its JWKS URL
 * (`<issuer>/openid/v1/jwks` when the API server publishes discovery), RS256 or ES256, plain profile.
 */
export function kubernetesServiceAccount(
  options: PresetOptions & { readonly issuer: string; readonly jwksUri: string },
): AuthenticationMechanism {
  const algorithms: readonly JWKSAlgorithm[] = ['RS256', 'ES256']
  return workloadJwt({
    name: 'kubernetes-service-account',
    algorithms,
    ...options,
    profile: kubernetesServiceAccountProfile,
  })
}
