import { runSuite } from '@portcullis/conformance'
import { adapterSuite } from '@portcullis/conformance/adapters'
import { describe, expect, it } from 'vitest'
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
    // the OpenAPI document of a guard-less route lacks its 403 answer, too
    expect(failed).toEqual([
      'adapter.guard-forbidden',
      'adapter.tenant-path-forgery',
      'adapter.step-up-one-use',
      'adapter.openapi',
    ])
  })

  it('fails an adapter whose error handler renders the error message', async () => {
    const results = await runSuite(
      adapterSuite((scenario) =>
        fastifyApp(scenario, (app) => {
          app.setErrorHandler((error, _request, reply) => {
            reply
              .code(500)
              .type('application/problem+json')
              .send({ message: (error as Error).message })
          })
        }),
      ),
    )
    const failed = results.filter((result) => !result.passed).map((result) => result.id)
    expect(failed).toEqual(['adapter.problem-bodies'])
  })
})
