import type { GuardPipeline } from '@portcullis/core/authorization'
import { ConfigurationError } from '@portcullis/core/errors'
import type { CompiledPolicy } from '@portcullis/core/policy'
import type { RouteOptions } from './route-options.js'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS'

/** Everything known about one registered route; stable data for documents, MCP and tests. */
export interface RegisteredRoute<H = unknown> {
  readonly method: HttpMethod
  /** The full route path, router prefix included (`/api/tenants/:tenantId`). */
  readonly path: string
  /** OpenAPI path templates (`/api/tenants/{tenantId}`); several when the path has optional groups. */
  readonly openapiPaths: readonly string[]
  /** Every path parameter name the route may capture. */
  readonly parameters: readonly string[]
  /** The options as given (including extension options). */
  readonly options: RouteOptions
  /** The effective policy (the default applied when `auth` was omitted). */
  readonly policy: CompiledPolicy
  readonly guards: GuardPipeline
  /** The application's handlers, in order (without Portcullis' own middleware), in the adapter's own type. */
  readonly handlers: readonly H[]
}

export type RouteListener<H = unknown> = (route: RegisteredRoute<H>) => void

/** The inspectable list of routes registered through every router of one `createSecurity()`. */
export class RouteRegistry<H = unknown> {
  readonly #routes: RegisteredRoute<H>[] = []
  readonly #keys = new Set<string>()
  readonly #listeners = new Set<RouteListener<H>>()
  #version = 0

  /** Increases with every registration (lets generated documents cache). */
  get version(): number {
    return this.#version
  }

  list(): readonly RegisteredRoute<H>[] {
    return Object.freeze([...this.#routes])
  }

  find(method: HttpMethod, path: string): RegisteredRoute<H> | undefined {
    return this.#routes.find((route) => route.method === method && route.path === path)
  }

  /**
   * Calls `listener` for every route already registered and every later one. A listener may throw a
   * `ConfigurationError` to reject a route: the registration call then throws (a startup error) and the
   * route is not added. Returns an unsubscribe function.
   */
  onRegister(listener: RouteListener<H>): () => void {
    for (const route of this.#routes) listener(route)
    this.#listeners.add(listener)
    return () => {
      this.#listeners.delete(listener)
    }
  }

  /** @internal Used by routers; validates uniqueness and runs listeners before committing. */
  add(route: RegisteredRoute<H>): void {
    // Two routes documenting the same method and path template would shadow each other.
    const keys = [route.path, ...route.openapiPaths].map((path) => `${route.method} ${path}`)
    const taken = keys.find((key) => this.#keys.has(key))
    if (taken !== undefined)
      throw new ConfigurationError('route.duplicate', `route ${taken} is registered twice`)
    for (const listener of this.#listeners) listener(route)
    for (const key of keys) this.#keys.add(key)
    this.#routes.push(Object.freeze(route))
    this.#version += 1
  }
}
