import type { SecurityContext } from '@portcullis/core/authorization'
import type { RequestEvaluation } from '@portcullis/core/policy'
import type { Hono } from 'hono'

/**
 * The Hono environment Portcullis adds to: `c.var.security` (or `c.get('security')`) is the verified
 * security context of the route (anonymous where no route policy ran). Type your app with it:
 * `new Hono<PortcullisEnv>()`, or intersect it with your own `Variables`.
 */
export interface PortcullisEnv {
  Variables: {
    security: SecurityContext
    /** @internal The request's memoized policy evaluation. */
    'portcullis.evaluation': RequestEvaluation
  }
}

// biome-ignore lint/suspicious/noExplicitAny: any Hono app, whatever its environment, schema and base path
export type AnyHono = Hono<any, any, any>
