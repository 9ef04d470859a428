import type { AuthenticationMechanism } from '../authentication/mechanism.js'
import { type OptionsShape, readOptions } from '../errors/options.js'
import type { JWKSAlgorithm } from '../jwks/jwks-provider.js'
import { githubActionsProfile, kubernetesServiceAccountProfile } from './token-profiles.js'
import {
  WORKLOAD_JWT_OPTIONS,
  type WorkloadJwtOptions,
  workloadJwtMechanism,
} from './workload-jwt-mechanism.js'

export const GITHUB_ACTIONS_ISSUER = 'https://token.actions.githubusercontent.com'
export const GITHUB_ACTIONS_JWKS_URI = 'https://token.actions.githubusercontent.com/.well-known/jwks'

type PresetOptions = Omit<WorkloadJwtOptions, 'profile' | 'issuer' | 'jwksUri'>
type GithubActionsOptions = PresetOptions & { readonly issuer?: string; readonly jwksUri?: string }
type KubernetesOptions = PresetOptions & { readonly issuer: string; readonly jwksUri: string }

const { profile: _profile, issuer, jwksUri, ...PRESET_OPTIONS } = WORKLOAD_JWT_OPTIONS
const GITHUB_ACTIONS_OPTIONS: OptionsShape<GithubActionsOptions> = {
  ...PRESET_OPTIONS,
  issuer: { ...issuer, required: false },
  jwksUri: { ...jwksUri, required: false },
}
const KUBERNETES_OPTIONS: OptionsShape<KubernetesOptions> = { ...PRESET_OPTIONS, issuer, jwksUri }

/**
 * GitHub Actions OIDC tokens (`permissions: id-token: write`): issuer and JWKS URL pinned to GitHub,
 * RS256, plain `JWT` profile. The principal id is the `sub` claim (`repo:<owner>/<repo>:...`); set
 * `audience` to the value your workflow requests. `issuer`/`jwksUri` may be overridden for GHES.
 */
export function githubActionsOidc(options: GithubActionsOptions): AuthenticationMechanism {
  readOptions(options, 'githubActionsOidc', GITHUB_ACTIONS_OPTIONS)
  return workloadJwtMechanism({
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
export function kubernetesServiceAccount(options: KubernetesOptions): AuthenticationMechanism {
  readOptions(options, 'kubernetesServiceAccount', KUBERNETES_OPTIONS)
  const algorithms: readonly JWKSAlgorithm[] = ['RS256', 'ES256']
  return workloadJwtMechanism({
    name: 'kubernetes-service-account',
    algorithms,
    ...options,
    profile: kubernetesServiceAccountProfile,
  })
}
