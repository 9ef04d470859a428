export {
  GITHUB_ACTIONS_ISSUER,
  GITHUB_ACTIONS_JWKS_URI,
  githubActionsOidc,
  kubernetesServiceAccount,
} from './presets.js'
export type { WorkloadTokenProfile } from './token-profiles.js'
export {
  accessTokenProfile,
  githubActionsProfile,
  kubernetesServiceAccountProfile,
} from './token-profiles.js'
export type { WorkloadJwtOptions } from './workload-jwt-mechanism.js'
export { workloadJwt } from './workload-jwt-mechanism.js'
