import type { PolicyEvaluator, RequestEvaluation } from '@portcullis/core/policy'
import type { StepUpCookies } from '@portcullis/http/cookies'
import type { OpenApiDocument } from '@portcullis/http/openapi'
import type { RouteRegistry } from '@portcullis/http/routing'
import type { SecurityOptions } from '@portcullis/http/security'
import type { FastifyRequest, RouteHandlerMethod } from 'fastify'

/** The options of the `portcullis` plugin: the same configuration as every adapter's, plus Fastify's own. */
export interface FastifySecurityOptions extends SecurityOptions<FastifyRequest> {
  /**
   * Installs Portcullis's problem+json error handler on the instance the plugin is registered on (and so
   * every child without its own). Default true.
   */
  readonly errorHandler?: boolean
}

/** What the plugin decorates the instance with (`app.portcullis`). */
export interface FastifySecurity {
  /** Every route registered after the plugin, with its policy, guards and options. */
  readonly routes: RouteRegistry<RouteHandlerMethod>
  /** The OpenAPI 3.1 document of the registered routes (also served at `openapi.path`). */
  openapi(): OpenApiDocument
  readonly evaluator: PolicyEvaluator
  /**
   * The request's policy evaluation, memoized per request: however many policies are evaluated for it,
   * every mechanism and the authorization resolver run at most once.
   */
  evaluation(request: FastifyRequest): RequestEvaluation
  /** How `requiresStepUp` reads credentials: the header, and the per-purpose cookies (unless turned off). */
  readonly stepUp: { readonly header: string; readonly cookies: StepUpCookies | undefined }
}
