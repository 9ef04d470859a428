import { ServerResponse } from 'node:http'
import { ConfigurationError } from '@portcullis/core/errors'
import type { MCPResourceResponse } from '@portcullis/core/mcp'
import {
  CAPTURING_METHODS,
  capturingResponse,
  resourceProblem,
  SyntheticRequest,
  statusOf,
} from '@portcullis/http/in-process'
import type { Request } from 'express'
import { inheritEvaluation } from '../security/evaluation-parent.js'
import { type RoutePlan, runRoutePlan } from './route-plan.js'

export interface LoopbackOptions {
  readonly timeoutMs: number
  readonly maxBytes: number
}

type Done = (error?: unknown) => void

/** What in-process reads need from the application, prepared once by `attach()`. */
export interface InProcessApp {
  /** Requests on the app's request prototype, with `fresh` always false: a read is never a 304. */
  readonly Request: new (
    caller: Request,
    path: string,
  ) => SyntheticRequest
  /**
   * Capturing responses on the app's response prototype, whose `app` generates no ETag: nobody
   * revalidates an inner answer.
   */
  readonly Response: new (
    request: SyntheticRequest,
  ) => ServerResponse
  /** The whole router: reads of routes without a compiled plan go through it. */
  readonly handle: (request: unknown, response: unknown, done: Done) => void
}

interface ExpressInternals {
  readonly request?: unknown
  readonly response?: unknown
  readonly settings?: unknown
  readonly router?: { handle?: unknown }
}

export function inProcessApp(app: unknown): InProcessApp {
  const { request, response, settings, router } = (app ?? {}) as ExpressInternals
  const handle = router?.handle
  if (
    typeof request !== 'object' ||
    request === null ||
    typeof response !== 'object' ||
    response === null ||
    typeof settings !== 'object' ||
    settings === null ||
    typeof handle !== 'function'
  ) {
    throw new ConfigurationError('mcp.app_invalid', 'attach() needs an Express 5 application')
  }
  // Express's res.send computes an ETag when `app.get('etag fn')` is set, then checks `req.fresh`: the
  // inner response sees the app through a view whose `etag fn` is unset (every other setting inherited).
  const view = Object.create(app as object, {
    settings: { value: Object.create(settings, { 'etag fn': { value: undefined } }) },
  })
  // Classes whose instances have the app's prototypes from the start: app.handle swaps them in on every
  // request, which costs more than building the request and response themselves.
  class InProcessRequest extends SyntheticRequest {
    constructor(caller: Request, path: string) {
      super(caller, path)
      // made on the caller's behalf: shares its per-request policy evaluation
      inheritEvaluation(this, caller)
    }
  }
  Object.setPrototypeOf(InProcessRequest.prototype, request)
  Object.defineProperties(InProcessRequest.prototype, {
    _read: { value: SyntheticRequest.prototype._read, configurable: true, writable: true },
    fresh: { get: () => false, configurable: true },
    stale: { get: () => true, configurable: true },
  })
  class InProcessResponse extends ServerResponse {}
  Object.setPrototypeOf(InProcessResponse.prototype, response)
  Object.defineProperties(InProcessResponse.prototype, {
    ...CAPTURING_METHODS,
    app: { value: view, configurable: true },
  })
  return {
    Request: InProcessRequest,
    Response: InProcessResponse,
    handle: (inner, outer, done) => handle.call(router, inner, outer, done),
  }
}

/**
 * Runs `GET path` in-process with the caller's headers and credentials and captures status, content type
 * and body: through the route's compiled plan (only the layers a direct GET would run), or through the
 * whole router when the route has none. The read shares the caller's per-request policy evaluation, so
 * no mechanism runs twice; the route's own policy and guards still decide, with `variables` as route
 * parameters. Unmatched routes answer 404 and unhandled errors 500 as problem documents (never a stack);
 * a route that does not answer within `timeoutMs` yields 504, a body over `maxBytes` yields 413.
 */
export function invokeInProcess(
  app: InProcessApp,
  plan: RoutePlan,
  caller: Request,
  path: string,
  variables: Readonly<Record<string, string>>,
  options: LoopbackOptions,
): Promise<MCPResourceResponse> {
  return new Promise((resolve) => {
    let settled = false
    const settle = (outcome: MCPResourceResponse) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
    }
    const timer = setTimeout(() => settle(resourceProblem(504, 'Gateway Timeout')), options.timeoutMs)
    const request = new app.Request(caller, path)
    const response = capturingResponse(new app.Response(request), options.maxBytes, settle)
    // what app.handle does before routing: circular references and res.locals
    ;(request as { res?: unknown }).res = response
    ;(response as { locals?: unknown }).locals = Object.create(null)
    const done: Done = (error) => {
      // an error after the head was written still fails the read instead of waiting for the timeout
      if (response.writableEnded || (error === undefined && response.headersSent)) return
      settle(
        error === undefined
          ? resourceProblem(404, 'Not Found')
          : resourceProblem(statusOf(error), 'Resource read failed'),
      )
    }
    try {
      if (plan.kind === 'compiled') {
        runRoutePlan(plan.steps, request as never, response, path, variables, done)
      } else {
        app.handle(request, response, done)
      }
    } catch (error) {
      settle(resourceProblem(statusOf(error), 'Resource read failed'))
    }
  })
}
