import { isPortcullisError } from '@portcullis/core/errors'
import { required } from '@portcullis/core/policy'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { call } from './http-client.js'
import { checkProblem } from './policy-cases.js'
import { policyWorld } from './policy-world.js'
import type { AdapterApp, AdapterFixture, ScenarioRoute } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

/** The stable code of a route refused because its options were never compiled. */
const ROUTE_NOT_SECURED = 'configuration.route_not_secured'

export const uncompiledCases: readonly Case[] = [
  conformanceCase(
    'adapter.uncompiled-route',
    'a route carrying a policy the adapter never compiled is never served without it: startup fails, ' +
      'or every request to it is 500 configuration.route_not_secured and its handler never runs',
    async (fixture, check) => {
      const world = policyWorld()
      const runs = { count: 0 }
      const early: ScenarioRoute = {
        method: 'GET',
        path: '/early',
        options: { auth: required('api-key') },
        respond: () => {
          runs.count += 1
          return { served: true }
        },
      }
      // the same application without that route starts and serves: a refusal is about the route
      const plain = await fixture.start(world.scenario)
      const control = await call(plain.url, '/public')
      check(control.status === 200, `the application without the route answered ${control.status}`)

      let app: AdapterApp
      try {
        app = await fixture.start({ ...world.scenario, uncompiledRoutes: [early] })
      } catch (error) {
        // refused at startup: the framework's own refusal, or Portcullis's naming the route
        if (isPortcullisError(error)) {
          check(error.code === ROUTE_NOT_SECURED, `startup refused with ${error.code}`)
          check(error.message.includes('GET /early'), `the startup error does not name the route`)
        }
        check(runs.count === 0, 'the handler ran')
        return
      }
      for (const headers of [{}, { 'x-api-key': 'alice-key' }, { authorization: 'Bearer alice-token' }]) {
        const answer = await call(app.url, '/early', { headers })
        checkProblem(check, answer, 500, ROUTE_NOT_SECURED)
        check(!answer.text.includes('served'), 'the handler answered')
      }
      check(runs.count === 0, `the handler ran ${runs.count} times`)
      const compiled = await call(app.url, '/me')
      checkProblem(check, compiled, 401, 'authentication.required')
    },
  ),
]
