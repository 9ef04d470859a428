import { runSuite } from '@portcullis/conformance'
import { adapterSuite } from '@portcullis/conformance/adapters'
import { anonymous } from '@portcullis/core/policy'
import { localRouteTable } from '@portcullis/http/local-accounts'
import { describe, expect, it } from 'vitest'
import { fastifyProblemFor, sendProblem } from '../../src/index.js'
import { registerNeutralRoutes } from '../../src/routing/neutral-routes.js'
import { fastifyApp } from './fastify-app.js'

// Each case runs the whole adapter suite (over a hundred cases): on a loaded two-core CI machine that
// takes well over the default minute, so the bound is a hang guard, not a speed check.
describe('the adapter suite against deliberately broken adapters', { timeout: 240_000 }, () => {
  it('fails an adapter that drops route guards, naming the guard and tenant invariants', async () => {
    const results = await runSuite(
      adapterSuite((scenario) =>
        fastifyApp({
          ...scenario,
          routes: scenario.routes.map(({ options: { guards: _dropped, ...options }, ...route }) => ({
            ...route,
            options,
          })),
        }),
      ),
    )
    const failed = results.filter((result) => !result.passed).map((result) => result.id)
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
    const results = await runSuite(
      adapterSuite((scenario) =>
        fastifyApp(
          scenario,
          (app) => {
            app.setErrorHandler((error, _request, reply) => {
              reply
                .code(500)
                .type('application/problem+json')
                .send({ message: (error as Error).message })
            })
          },
          { errorHandler: false },
        ),
      ),
    )
    const failed = results.filter((result) => !result.passed).map((result) => result.id)
    // a generated route answers an oversize body itself, as on Express; the application's own routes
    // answer it (and a body that is not JSON, a handler's own problem, and a route's refused
    // impersonation) through the error handler
    expect(failed).toEqual([
      'adapter.problem-bodies',
      'adapter.malformed-json',
      'adapter.handler-challenge',
      'adapter.body-limit-named',
      'adapter.impersonation-outlasting',
    ])
  })

  it('fails an adapter whose 413 does not name the limit', async () => {
    const results = await runSuite(
      adapterSuite((scenario) =>
        fastifyApp(
          scenario,
          (app) => {
            // the problem of the error alone, without the request whose route set the limit
            app.setErrorHandler((error, _request, reply) => sendProblem(reply, fastifyProblemFor(error)))
          },
          { errorHandler: false },
        ),
      ),
    )
    const failed = results.filter((result) => !result.passed).map((result) => result.id)
    expect(failed).toEqual(['adapter.body-limit-named'])
  })

  it('fails an adapter that serves a route it never compiled without its policy', async () => {
    const results = await runSuite(
      adapterSuite(({ uncompiledRoutes, ...scenario }) =>
        fastifyApp(scenario, (app) => {
          // declared after the plugin, but with the options dropped: served as a plain route
          for (const route of uncompiledRoutes ?? []) {
            app.get(route.path, { config: { auth: anonymous() } }, async () => route.respond({} as never))
          }
        }),
      ),
    )
    const failed = results.filter((result) => !result.passed).map((result) => result.id)
    expect(failed).toEqual(['adapter.uncompiled-route'])
  })

  it('fails an adapter that serves the local-account routes without the CSRF check', async () => {
    const results = await runSuite(
      adapterSuite(async ({ local, ...scenario }) =>
        fastifyApp(scenario, (app) => {
          if (local !== undefined)
            registerNeutralRoutes(app, localRouteTable({ local }), { bodyLimit: 16384, onError: undefined })
        }),
      ),
    )
    const failed = results.filter((result) => !result.passed).map((result) => result.id)
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
