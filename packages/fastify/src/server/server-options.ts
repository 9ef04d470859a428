import type { ProblemInit } from '@portcullis/http/problem'
import type { FastifyError, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify'
import { sendProblem } from '../problem/send-problem.js'
import { baselineHeadersOf } from '../security/baseline-headers.js'

/**
 * The longest path parameter Portcullis routes accept, and so the `routerOptions.maxParamLength` a
 * Fastify server needs: a passkey credential id is base64url of up to 1023 bytes (1364 characters); an
 * organization member id is up to 255 characters. Fastify's default is 100, and a longer parameter is
 * answered by the router before any route or hook runs.
 */
export const PORTCULLIS_MAX_PARAM_LENGTH = 2048

/** A path parameter longer than the router's `maxParamLength`: 414, the path never echoed. */
const URL_TOO_LONG: ProblemInit = {
  status: 414,
  code: 'request.url_too_long',
  detail: 'A path segment of the request URL is too long',
}

/** A path whose percent-encoding does not decode: 400, the path never echoed. */
const MALFORMED_URL: ProblemInit = {
  status: 400,
  code: 'request.malformed_url',
  detail: 'The request URL is malformed',
}

const FRAMEWORK_PROBLEMS: Readonly<Record<string, ProblemInit>> = {
  FST_ERR_MAX_PARAM_LENGTH: URL_TOO_LONG,
  FST_ERR_BAD_URL: MALFORMED_URL,
}

/**
 * Fastify's `frameworkErrors` server option answering the router's own URL errors as problem+json: a
 * path parameter over `maxParamLength` is 414 `request.url_too_long`, a malformed percent-encoding 400
 * `request.malformed_url`, both with `Cache-Control: no-store` and the header baseline (the plugin's, with
 * its `headers` overrides, when it is registered on the root instance), and neither echoes the path.
 * Any other framework error (an async route constraint that failed) is passed on to the root instance's
 * error handler, as a route's error would be: the plugin's problem+json one when it is registered there
 * (a 500 `internal.error`, nothing of the error shown), else Fastify's own.
 */
export function portcullisFrameworkErrors(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  reply.headers(baselineHeadersOf(request.server))
  const problem = FRAMEWORK_PROBLEMS[error.code]
  if (problem === undefined) request.server.errorHandler(error, request, reply)
  else sendProblem(reply, problem)
}

/** The server options `portcullisServerOptions` sets. */
export interface PortcullisServerOptions {
  readonly frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']>
  readonly routerOptions: NonNullable<FastifyServerOptions['routerOptions']>
}

/**
 * Fastify server options for a Portcullis app: `options` with `frameworkErrors` set to
 * `portcullisFrameworkErrors` (unless it has its own) and `routerOptions.maxParamLength` raised to at
 * least `PORTCULLIS_MAX_PARAM_LENGTH` (a larger value given, there or as the older top-level
 * `maxParamLength`, is kept). `Fastify(portcullisServerOptions({ logger: true }))`.
 */
export function portcullisServerOptions<Options extends FastifyServerOptions>(
  options?: Options,
): Omit<Options, 'maxParamLength'> & PortcullisServerOptions {
  const { maxParamLength, ...rest } = options ?? ({} as Options)
  const routerOptions: NonNullable<FastifyServerOptions['routerOptions']> = rest.routerOptions ?? {}
  const given = Math.max(routerOptions.maxParamLength ?? 0, maxParamLength ?? 0)
  return {
    ...rest,
    frameworkErrors: rest.frameworkErrors ?? portcullisFrameworkErrors,
    routerOptions: { ...routerOptions, maxParamLength: Math.max(given, PORTCULLIS_MAX_PARAM_LENGTH) },
  }
}
