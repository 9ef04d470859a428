import type { FastifyInstance } from 'fastify'

/** A route of the application as Fastify serves it: its `config` as the route's requests see it. */
export interface SurveyedRoute {
  /** `request.routeOptions.config` of the route: the declared `config` plus Fastify's `url` and `method`. */
  readonly config: Readonly<Record<string | symbol, unknown>>
}

/** The survey: every route of the router, or `undefined` when Fastify did not hand them over. */
export type RouteSurvey = readonly SurveyedRoute[] | undefined

/**
 * Every route of the application, whichever scope declared it and whether or not a plugin's `onRoute`
 * hook saw it. Fastify 5 has no public listing of routes with their options; `printRoutes` is the one
 * call that visits them all, and it asks its `buildPrettyMeta` function for each route's metadata. The
 * survey supplies that function (find-my-way installs it on the options object it is given) and records
 * each route's `config` instead of printing anything. When a Fastify release stops handing the routes
 * over this way the survey is `undefined`, and the caller must then check routes as they are requested.
 */
export function surveyRoutes(fastify: FastifyInstance): RouteSurvey {
  const seen = new Set<object>()
  let complete = true
  const collect = (route: { readonly store?: { readonly config?: unknown } } | undefined) => {
    const config = route?.store?.config
    if (typeof config === 'object' && config !== null) seen.add(config)
    else complete = false
    return {}
  }
  const options = { includeMeta: true }
  Object.defineProperty(options, 'buildPrettyMeta', { get: () => collect, set: () => {}, enumerable: false })
  let printed: string
  try {
    printed = fastify.printRoutes(options)
  } catch {
    return undefined
  }
  if (!complete) return undefined
  // routes were printed but none was handed to `buildPrettyMeta`: the hand-over is gone
  if (seen.size === 0 && printed.trim() !== '' && printed.trim() !== '(empty tree)') return undefined
  return [...seen].map((config) => ({ config: config as SurveyedRoute['config'] }))
}
