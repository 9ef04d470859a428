import type { AuthenticatedSecurityContext, SecurityContext } from '@portcullis/core/authorization'
import { ConfigurationError } from '@portcullis/core/errors'
import type { AuthenticatingPolicy, AuthPolicy } from '@portcullis/core/policy'
import type { HttpMethod, RouteOptions } from '@portcullis/http/routing'
import type { NextFunction, Request, RequestHandler, Response } from 'express'

/** The Express router behind a `SecureRouter` (what `app.use(router)` ends up running). */
export const INNER_ROUTER: unique symbol = Symbol('portcullis.innerRouter')

/** A request on a secured route: the security context is always present. */
export type SecuredRequest<C extends SecurityContext = SecurityContext> = Request & { security: C }

/** A handler of a secured route. Plain Express handlers are accepted too. */
export type SecuredHandler<C extends SecurityContext = SecurityContext> = (
  request: SecuredRequest<C>,
  response: Response,
  next: NextFunction,
) => unknown

/** Authenticating policies guarantee a principal; optional, anonymous and default policies do not. */
export type ContextFor<A extends AuthPolicy | undefined> = [A] extends [AuthenticatingPolicy]
  ? AuthenticatedSecurityContext
  : SecurityContext

export interface RouteMethod {
  (path: string, ...handlers: readonly SecuredHandler[]): SecureRouter
  <A extends AuthPolicy | undefined = undefined>(
    path: string,
    options: RouteOptions & { readonly auth?: A },
    ...handlers: readonly SecuredHandler<ContextFor<A>>[]
  ): SecureRouter
}

/**
 * A Portcullis router: an Express middleware (mount it with `app.use(router)`, at the application root:
 * its prefix is part of every registered path) whose route methods take `{ auth, guards, openapi }`.
 */
export interface SecureRouter {
  (request: Request, response: Response, next: NextFunction): void
  /** Prefix of every route path of this router (`''` for none). */
  readonly prefix: string
  readonly get: RouteMethod
  readonly post: RouteMethod
  readonly put: RouteMethod
  readonly patch: RouteMethod
  readonly delete: RouteMethod
  readonly options: RouteMethod
}

export interface SecureRouterOptions {
  /** Prepended to every route path (`/api`). Must start with `/` and not end with `/`. */
  readonly prefix?: string
}

/** Registers one route; supplied by `createSecurity`. */
export type RegisterRoute = (
  method: HttpMethod,
  path: string,
  options: RouteOptions,
  handlers: readonly RequestHandler[],
) => void

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && typeof value !== 'function'

/**
 * Splits `(path, options?, ...handlers)` and validates the shapes; `where` names the route in errors
 * (`route GET /api/admin`). Options after a handler would never be applied: that route is refused
 * (`configuration.route_not_secured`) rather than served without them.
 */
export function routeArguments(
  args: readonly unknown[],
  where: string,
): {
  options: RouteOptions
  handlers: RequestHandler[]
} {
  const [first, ...rest] = args
  const hasOptions = isPlainObject(first)
  const handlers = hasOptions ? rest : args
  if (!hasOptions && first !== undefined && typeof first !== 'function') {
    throw new ConfigurationError('route.invalid_options', `${where}: route options must be an object`, {
      option: where,
    })
  }
  const misplaced = handlers.find(isPlainObject)
  if (misplaced !== undefined) {
    throw new ConfigurationError(
      'configuration.route_not_secured',
      `${where}: route options (${Object.keys(misplaced).join(', ')}) after a handler would never be ` +
        'applied; pass them before the handlers',
      { option: where },
    )
  }
  if (handlers.length === 0 || handlers.some((handler) => typeof handler !== 'function')) {
    throw new ConfigurationError(
      'route.invalid_handlers',
      `${where}: a route needs one or more handler functions`,
      { option: where },
    )
  }
  return { options: hasOptions ? (first as RouteOptions) : {}, handlers: handlers as RequestHandler[] }
}

export function validPrefix(prefix: string | undefined): string {
  if (prefix === undefined || prefix === '') return ''
  if (typeof prefix !== 'string' || !prefix.startsWith('/') || prefix.endsWith('/')) {
    throw new ConfigurationError(
      'route.invalid_prefix',
      'router prefix must start with "/" and not end with "/"',
    )
  }
  return prefix
}
