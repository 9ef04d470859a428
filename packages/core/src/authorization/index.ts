export { requiresAllOf, requiresAnyOf, requiresAtLeast, requiresOneOf } from './combinators.js'
export type {
  AuthenticatedSecurityContext,
  GuardContext,
  RouteParameters,
  SecurityContext,
} from './context.js'
export { anonymousContext } from './context.js'
export { AuthorizationDataError } from './errors.js'
export type {
  Guard,
  GuardDecision,
  GuardDenial,
  GuardPathSegment,
  UserAuthenticationChallenge,
} from './guard.js'
export { guard } from './guard.js'
export type { TenantGuardOptions, TenantRoleGuardOptions } from './guards.js'
export {
  requiresAuthenticated,
  requiresCapability,
  requiresRole,
  requiresScope,
  requiresTeam,
  requiresTenant,
  requiresTenantRole,
} from './guards.js'
export type { GuardPipeline, RouteGuard } from './pipeline.js'
export { compileGuards } from './pipeline.js'
export type { AuthorizationRequest, AuthorizationResolver, AuthorizationResult } from './resolver.js'
export { grantsFromCredentials, resolveAuthorization } from './resolver.js'
export { applyRestrictions } from './restrictions.js'
export type { AuthorizationSnapshotInit, AuthorizationSnapshotJSON } from './snapshot.js'
export { AuthorizationSnapshot } from './snapshot.js'
export type {
  StepUpConsumer,
  StepUpGuard,
  StepUpGuardOptions,
  StepUpRequestBinding,
  StepUpVerdict,
  StepUpVerificationRequest,
  StepUpVerifier,
} from './step-up.js'
export { requiresStepUp, stepUpVerifierFor } from './step-up.js'
export type { AcrAtLeastOptions, AuthenticatedWithinOptions } from './user-authentication.js'
export { ACR_ATTRIBUTE, AUTH_TIME_ATTRIBUTE, acrAtLeast, authenticatedWithin } from './user-authentication.js'
