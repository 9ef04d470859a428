import { joinPaths } from '@portcullis/http/mcp'
import type { RequestHandler } from 'express'
import { INNER_ROUTER } from '../routing/secure-router.js'
import { inProcessFormOf } from '../security/in-process.js'
import { type Decision, decideTemplated, type LayerLike, type Segment, segmentsOf } from './layer-match.js'

/**
 * The compiled dispatch of one marked route: at `attach()` the application's router is walked once and
 * every layer a direct `GET` of the route would run is kept, in order (app- and router-level middleware
 * whose mount path matches, the route itself, error handlers), with the `req.url`, `req.baseUrl` and
 * `req.params` each one sees. A read then runs just those layers instead of matching every layer of the
 * app. When a layer's participation depends on the template values (a parameterised or RegExp mount, a
 * route sharing the path only for some values) or cannot be reproduced (`router.param` callbacks), the
 * plan is `pipeline`: reads of that route go through the whole router.
 */

interface RouterLike {
  readonly stack: readonly LayerLike[]
  readonly caseSensitive?: unknown
  readonly mergeParams?: unknown
  readonly params?: Readonly<Record<string, unknown>>
}

type Params = Readonly<Record<string, string>>

export interface PlanStep {
  readonly layer: LayerLike
  /** The middleware's in-process form, run instead of it (Portcullis's own `security.middleware`). */
  readonly form: RequestHandler | undefined
  /** A route layer (skipped while an error is pending, like Express does). */
  readonly route: boolean
  /** The marked route: its parameters are the template variables. */
  readonly target: boolean
  /** Characters of the concrete path the mounts above this layer removed from `req.url`. */
  readonly trim: number
  readonly baseUrl: string
  /** `req.params` when known at attach (middleware, literal paths); otherwise the route matches at read. */
  readonly params: Params | undefined
  /** The params of the enclosing router merged in (a `mergeParams` router), or undefined. */
  readonly inherited: Params | undefined
  /** Where `next('router')` continues: after the enclosing router's layers. */
  exit: number
}

/** Stacks whose growth (a route or middleware added after `attach()`) makes the plan stale. */
export type Fingerprint = readonly (readonly [readonly unknown[], number])[]

export type RoutePlan =
  | { readonly kind: 'compiled'; readonly steps: readonly PlanStep[]; readonly fingerprint: Fingerprint }
  | { readonly kind: 'pipeline'; readonly reason: string; readonly fingerprint: Fingerprint }

export interface PlanTarget {
  /** The route's full path pattern (`/tenants/:tenantId/report`). */
  readonly pattern: string
  /** A handler of the route, identifying its layer; without one the first GET route of the pattern is it. */
  readonly handler: unknown
  readonly templated: boolean
}

interface Context {
  readonly trim: number
  readonly base: string
  readonly consumed: number
  readonly prefix: string
  readonly params: Params
}

type Matched =
  | { readonly kind: 'never' }
  | { readonly kind: 'maybe' }
  | {
      readonly kind: 'always'
      readonly text: string
      readonly consumed: number
      readonly params: Params | undefined
    }

const EMPTY: Params = Object.freeze({})

function routerOf(handle: unknown): RouterLike | undefined {
  const candidate = (handle as { [INNER_ROUTER]?: unknown } | null)?.[INNER_ROUTER] ?? handle
  const stack = (candidate as { stack?: unknown } | null)?.stack
  return typeof candidate === 'function' && Array.isArray(stack)
    ? (candidate as unknown as RouterLike)
    : undefined
}

function hasParamCallbacks(router: RouterLike): boolean {
  return router.params !== undefined && Object.keys(router.params).length > 0
}

/** Whether `layer` is part of a GET of the target, and what it consumes. */
function matchLayer(
  layer: LayerLike,
  end: boolean,
  context: Context,
  segments: readonly Segment[],
  concrete: string | undefined,
  sensitive: boolean,
): Matched {
  if (layer.slash === true) return { kind: 'always', text: '', consumed: 0, params: EMPTY }
  if (concrete !== undefined) {
    // a path without parameters: Express's own matcher decides, exactly
    const relative = concrete.slice(context.trim) || '/'
    let match: ReturnType<LayerLike['match']>
    try {
      match = layer.match(relative)
    } catch {
      return { kind: 'maybe' }
    }
    if (match === false) return { kind: 'never' }
    const boundary = relative.charAt(match.path.length)
    if (!end && match.path !== '' && boundary !== '' && boundary !== '/') return { kind: 'never' }
    return { kind: 'always', text: match.path, consumed: 0, params: match.params }
  }
  const rest = segments.slice(context.consumed)
  const decision: Decision = decideTemplated(layer.rawPath, rest, end, sensitive)
  if (decision.kind !== 'always') return decision
  if (!end && (decision.parameterised || typeof layer.rawPath !== 'string')) return { kind: 'maybe' }
  const taken = rest.slice(0, decision.consumed).map((segment) => segment.text)
  const text = end || taken.length === 0 ? '' : `/${taken.join('/')}`
  return { kind: 'always', text, consumed: decision.consumed, params: end ? undefined : EMPTY }
}

/** Compiles the plan of one marked route against the application's router. */
export function compileRoutePlan(root: unknown, target: PlanTarget, concrete: string | undefined): RoutePlan {
  const segments = segmentsOf(target.pattern)
  const steps: PlanStep[] = []
  const fingerprint: (readonly [readonly unknown[], number])[] = []
  let found = false

  const visit = (router: RouterLike, context: Context): string | undefined => {
    fingerprint.push([router.stack, router.stack.length])
    const sensitive = router.caseSensitive === true
    const inherited = router.mergeParams === true ? context.params : undefined
    const first = steps.length
    for (const layer of router.stack) {
      const route = layer.route
      if (route !== undefined) {
        if (!route._handlesMethod('get')) continue
        const isTarget =
          !found &&
          typeof route.path === 'string' &&
          joinPaths(context.prefix, route.path) === target.pattern &&
          (target.handler === undefined || route.stack.some((entry) => entry.handle === target.handler))
        const matched: Matched = isTarget
          ? { kind: 'always', text: '', consumed: 0, params: undefined }
          : matchLayer(layer, true, context, segments, concrete, sensitive)
        if (matched.kind === 'never') continue
        if (matched.kind === 'maybe') return `another route may match ${target.pattern} for some values`
        if (hasParamCallbacks(router) && (isTarget ? target.templated : matched.params !== EMPTY)) {
          return 'router.param() callbacks'
        }
        found ||= isTarget
        steps.push({
          layer,
          form: undefined,
          route: true,
          target: isTarget,
          trim: context.trim,
          baseUrl: context.base,
          params: isTarget ? undefined : matched.params,
          inherited,
          exit: -1,
        })
        continue
      }
      const matched = matchLayer(layer, false, context, segments, concrete, sensitive)
      if (matched.kind === 'never') continue
      if (matched.kind === 'maybe') return `a mount path that matches ${target.pattern} only for some values`
      const base = `${context.base}${matched.text.endsWith('/') ? matched.text.slice(0, -1) : matched.text}`
      const params = matched.params ?? EMPTY
      if (hasParamCallbacks(router) && Object.keys(params).length > 0) return 'router.param() callbacks'
      const nested = routerOf(layer.handle)
      if (nested === undefined) {
        steps.push({
          layer,
          form: inProcessFormOf(layer.handle),
          route: false,
          target: false,
          trim: context.trim + matched.text.length,
          baseUrl: base,
          params,
          inherited,
          exit: -1,
        })
        continue
      }
      if (typeof layer.rawPath !== 'string') return 'a router mounted on several paths'
      const reason = visit(nested, {
        trim: context.trim + matched.text.length,
        base,
        consumed: context.consumed + matched.consumed,
        prefix: joinPaths(context.prefix, layer.rawPath),
        params: inherited === undefined ? params : { ...inherited, ...params },
      })
      if (reason !== undefined) return reason
    }
    for (let index = first; index < steps.length; index += 1) {
      const step = steps[index] as PlanStep
      if (step.exit === -1) step.exit = steps.length
    }
    return undefined
  }

  const router = routerOf(root)
  const reason =
    router === undefined
      ? 'no router'
      : visit(router, { trim: 0, base: '', consumed: 0, prefix: '', params: EMPTY })
  if (reason !== undefined) return { kind: 'pipeline', reason, fingerprint }
  if (!found) return { kind: 'pipeline', reason: 'the marked route was not found in the router', fingerprint }
  return { kind: 'compiled', steps, fingerprint }
}

/** False once a router the plan walked gained or lost layers. */
export function isCurrent(plan: RoutePlan): boolean {
  for (const [stack, length] of plan.fingerprint) if (stack.length !== length) return false
  return true
}

interface PlannedRequest {
  url: string
  originalUrl: string
  baseUrl: string
  params: Record<string, string>
  next?: (error?: unknown) => void
}

function paramsAt(step: PlanStep, relative: string, variables: Params): Record<string, string> {
  let own: Params
  if (step.target) own = variables
  else if (step.params !== undefined) own = step.params
  else {
    const match = step.layer.match(relative)
    own = match === false ? EMPTY : match.params
  }
  return step.inherited === undefined ? { ...own } : { ...step.inherited, ...own }
}

function runForm(form: RequestHandler, request: unknown, response: unknown, next: (error?: unknown) => void) {
  try {
    form(request as never, response as never, next)
  } catch (error) {
    next(error)
  }
}

/**
 * Runs a compiled plan the way Express's router would run those layers: `next(error)` skips routes and
 * reaches error handlers, `next('route')` leaves a route, `next('router')` leaves the enclosing router.
 * `done` gets what is left when no layer answered (nothing: 404; or the pending error).
 */
export function runRoutePlan(
  steps: readonly PlanStep[],
  request: PlannedRequest,
  response: unknown,
  path: string,
  variables: Params,
  done: (error?: unknown) => void,
): void {
  let index = 0
  request.originalUrl = path
  const next = (error?: unknown): void => {
    let pending = error === 'route' ? undefined : error
    if (pending === 'router') {
      index = (steps[index - 1] as PlanStep).exit
      pending = undefined
    }
    while (index < steps.length) {
      const step = steps[index] as PlanStep
      index += 1
      if ((step.route || step.form !== undefined) && pending !== undefined) continue
      const relative = step.trim === 0 ? path : path.slice(step.trim) || '/'
      request.url = relative.startsWith('/') ? relative : `/${relative}`
      request.baseUrl = step.baseUrl
      try {
        request.params = paramsAt(step, request.url, variables)
      } catch (thrown) {
        pending ??= thrown // a malformed escape Express would have refused while matching
        continue
      }
      request.next = next
      if (step.form !== undefined) runForm(step.form, request, response, next)
      else if (pending === undefined) step.layer.handleRequest(request, response, next)
      else step.layer.handleError(pending, request, response, next)
      return
    }
    request.url = path
    request.baseUrl = ''
    done(pending)
  }
  next()
}
