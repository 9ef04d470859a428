import { runSuite } from '@portcullis/conformance'
import { adapterSuite } from '@portcullis/conformance/adapters'
import { localRouteTable } from '@portcullis/http/local-accounts'
import { bodyLimit } from 'hono/body-limit'
import { describe, expect, it } from 'vitest'
import { securityOf } from '../../src/index.js'
import { registerNeutralRoutes } from '../../src/routing/neutral-routes.js'
import { honoApp } from './hono-app.js'

/** The ids of the cases the suite failed, in suite order. */
async function failedCases(suite: Parameters<typeof runSuite>[0]): Promise<string[]> {
  const results = await runSuite(suite)
  return results.filter((result) => !result.passed).map((result) => result.id)
}

// Each case runs the whole adapter suite (over a hundred cases): on a loaded two-core CI machine that
// takes well over the default minute, so the bound is a hang guard, not a speed check.
describe('the adapter suite against deliberately broken Hono adapters', { timeout: 240_000 }, () => {
  it('fails an adapter that drops route guards, naming the guard and tenant invariants', async () => {
    const failed = await failedCases(
      adapterSuite((scenario) =>
        honoApp({
          ...scenario,
          routes: scenario.routes.map(({ options: { guards: _dropped, ...options }, ...route }) => ({
            ...route,
            options,
          })),
        }),
      ),
    )
    // the OpenAPI document of a guard-less route lacks its 403 answer, a passkey step-up guards nothing
    // then, an impersonation starts without the capability, and MCP reads obey the same routes
    expect(failed).toEqual([
      'adapter.guard-forbidden',
      'adapter.tenant-path-forgery',
      'adapter.step-up-one-use',
      'adapter.openapi',
      'adapter.passkey-step-up',
      'adapter.impersonation-start',
      'adapter.mcp-list-read',
      'adapter.mcp-organization-tenants',
      // the guarded route's refusal is neither answered nor recorded (no refused span, no count)
      'adapter.telemetry',
    ])
  })

  it('fails an adapter whose error handler renders the error message', async () => {
    const failed = await failedCases(
      adapterSuite((scenario) =>
        honoApp(scenario, {
          errorHandler: false,
          beforeRoutes: (app) => {
            app.onError((error, c) =>
              c.json({ message: error.message }, 500, { 'content-type': 'application/problem+json' }),
            )
          },
        }),
      ),
    )
    // only the thrown errors of the application's own routes reach `app.onError` (a handler's own
    // problem, the 400 of a body that is not JSON, a route's refused impersonation): the generated routes
    // render their own problems, and the 413 of the application's routes is answered by the body-limit
    // middleware's `onError`, never thrown
    expect(failed).toEqual([
      'adapter.problem-bodies',
      'adapter.malformed-json',
      'adapter.handler-challenge',
      'adapter.impersonation-outlasting',
    ])
  })

  it('fails an adapter whose 413 does not name the limit', async () => {
    const failed = await failedCases(
      adapterSuite((scenario) =>
        // `hono/body-limit` without its `onError`: Hono's HTTPException 413 reaches `security.onError`,
        // which knows no limit
        honoApp(scenario, { bodyLimit: (limit) => bodyLimit({ maxSize: limit }) }),
      ),
    )
    // still a 413 `request.body_too_large` problem (so `adapter.body-limits` passes), but its detail
    // names no limit; the generated routes read their bodies themselves and keep naming theirs
    expect(failed).toEqual(['adapter.body-limit-named'])
  })

  it('fails an adapter that serves a route it never compiled without its policy', async () => {
    const failed = await failedCases(
      adapterSuite(({ uncompiledRoutes, ...scenario }) =>
        honoApp(scenario, {
          afterReady: (app) => {
            // declared after `ready`, without `security.route(...)`: a plain route, served as is
            for (const route of uncompiledRoutes ?? []) {
              app.get(route.path, (c) =>
                c.json(route.respond({ security: securityOf(c), params: {} }) as object),
              )
            }
          },
        }),
      ),
    )
    // every other route is compiled: only the case that requests the uncompiled route sees it served
    expect(failed).toEqual(['adapter.uncompiled-route'])
  })

  it("fails an adapter that makes every authenticated answer no-store over the handler's own Cache-Control", async () => {
    const failed = await failedCases(
      adapterSuite((scenario) =>
        honoApp(scenario, {
          beforeRoutes: (app) => {
            app.use(async (c, next) => {
              await next()
              if (c.req.header('authorization') !== undefined) c.res.headers.set('cache-control', 'no-store')
            })
          },
        }),
      ),
    )
    expect(failed).toEqual(['adapter.handler-cache-control'])
  })

  it("fails an adapter whose c.req.json() throws the parser's SyntaxError on a body that is not JSON", async () => {
    const failed = await failedCases(
      adapterSuite((scenario) =>
        honoApp(scenario, {
          beforeRoutes: (app) => {
            app.use(async (c, next) => {
              // Hono's own method, without the 400 problem `security.middleware` gives it
              ;(c.req as { json: unknown }).json = Object.getPrototypeOf(c.req).json
              await next()
            })
          },
        }),
      ),
    )
    // the SyntaxError reaches `security.onError` as any unknown error: 500 internal.error
    expect(failed).toEqual(['adapter.malformed-json'])
  })

  it('fails an adapter that serves the local-account routes without the CSRF check', async () => {
    const failed = await failedCases(
      adapterSuite(({ local, ...scenario }) =>
        honoApp(scenario, {
          beforeRoutes: (app, security) => {
            // the route table alone, without the CSRF middleware `localAccountRoutes` puts in front
            if (local !== undefined)
              registerNeutralRoutes(app, security, localRouteTable({ local }), undefined)
          },
        }),
      ),
    )
    // the routes themselves still work (sign-in, tokens, body limits): only a cross-site unsafe request
    // carrying the session cookie gets through
    // every case that sends a cross-site unsafe request with the session cookie notices it
    expect(failed).toEqual([
      'adapter.csrf',
      'adapter.impersonation-refused',
      'adapter.impersonation-csrf-refused',
      'adapter.activity-csrf',
      'adapter.administration-csrf',
      'adapter.organizations-csrf',
      'adapter.organization-domains-verify',
      'adapter.join-requests-approve',
      'adapter.active-organization-refusals',
    ])
  })
})
