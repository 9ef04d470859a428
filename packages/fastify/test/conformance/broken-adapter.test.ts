import { runSuite } from '@portcullis/conformance'
import { adapterSuite } from '@portcullis/conformance/adapters'
import { localRouteTable } from '@portcullis/http/local-accounts'
import { describe, expect, it } from 'vitest'
import { registerNeutralRoutes } from '../../src/routing/neutral-routes.js'
import { fastifyApp } from './fastify-app.js'

describe('the adapter suite against deliberately broken adapters', () => {
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
    // then, and MCP reads obey the same routes
    expect(failed).toEqual([
      'adapter.guard-forbidden',
      'adapter.tenant-path-forgery',
      'adapter.step-up-one-use',
      'adapter.openapi',
      'adapter.passkey-step-up',
      'adapter.mcp-list-read',
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
    // an oversize body of a generated route is answered by the route itself, as on Express
    expect(failed).toEqual(['adapter.problem-bodies'])
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
    expect(failed).toEqual(['adapter.csrf'])
  })
})
