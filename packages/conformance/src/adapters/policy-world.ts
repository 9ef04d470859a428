import {
  requiresScope,
  requiresStepUp,
  requiresTenantRole,
  stepUpVerifierFor,
} from '@portcullis/core/authorization'
import { allOf, anonymous, anyOf, exclude, optional, required } from '@portcullis/core/policy'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import { HttpProblem } from '@portcullis/http'
import { alice, bob, ci, staticBearer, switchableApiKey } from './mechanisms.js'
import type { AdapterScenario, ScenarioRoute } from './scenario.js'

/** The secret a failing handler holds; no answer may ever contain it. */
export const LEAKED_SECRET = 'postgres://admin:hunter2@db.internal'

const STEP_UP_BINDING = { securityEpoch: 0, sessionBinding: 'conformance-session' }

const route = (
  method: ScenarioRoute['method'],
  path: string,
  options: ScenarioRoute['options'],
  respond: ScenarioRoute['respond'] = ({ security }) => ({ principal: security.principal?.id ?? null }),
): ScenarioRoute => ({ method, path, options, respond })

/**
 * The policy world: a bearer mechanism (alice, bob, ci) and a switchable API key (alice, bob), grants
 * from a resolver (alice owns tenant `acme` and reads reports; bob views `globex`; ci reads reports),
 * a step-up service, and one route per policy shape.
 */
export function policyWorld() {
  const bearer = staticBearer({
    'alice-token': { principal: alice },
    'bob-token': { principal: bob },
    'ci-token': { principal: ci },
  })
  const apiKey = switchableApiKey({ 'alice-key': { principal: alice }, 'bob-key': { principal: bob } })
  const stepUp = new StepUpService({ store: new MemoryStepUpStore() })
  const scenario: AdapterScenario = {
    security: {
      mechanisms: [bearer, apiKey.mechanism],
      authorizationResolver: ({ principal }) => {
        if (principal.id === 'alice')
          return { scopes: ['reports:read'], tenants: new Map([['acme', ['owner']]]) }
        if (principal.id === 'bob') return { tenants: new Map([['globex', ['viewer']]]) }
        return { scopes: ['reports:read'] }
      },
      stepUp: { verifier: stepUpVerifierFor(stepUp, () => STEP_UP_BINDING) },
      openapi: { info: { title: 'Conformance', version: '1.0.0' } },
    },
    routes: [
      route('GET', '/public', { auth: anonymous() }, () => ({ hello: 'world' })),
      route('GET', '/hidden', { auth: exclude() }, () => ({ hidden: true })),
      route('GET', '/me', { auth: required() }),
      route('GET', '/either', { auth: anyOf('bearer', 'api-key') }),
      route('GET', '/both', { auth: allOf('bearer', 'api-key') }),
      route('GET', '/maybe', { auth: optional(required('bearer')) }, ({ security }) => ({
        personalised: security.principal !== null,
      })),
      route('GET', '/reports', { auth: required(), guards: [requiresScope('reports:read')] }),
      route(
        'GET',
        '/tenants/:tenantId/report',
        { auth: required(), guards: [requiresTenantRole({ roles: ['owner'] })] },
        ({ params }) => ({ tenant: params.tenantId }),
      ),
      route(
        'POST',
        '/account/delete',
        { auth: required('bearer'), guards: [requiresStepUp('delete')] },
        () => ({
          deleted: true,
        }),
      ),
      route('GET', '/fails', { auth: anonymous() }, () => {
        throw new Error(`connection to ${LEAKED_SECRET} refused`)
      }),
      route('GET', '/teapot', { auth: anonymous() }, () => {
        throw new HttpProblem({ status: 418, code: 'kitchen.teapot', detail: 'I am a teapot' })
      }),
    ],
  }
  const issueStepUp = async (purpose: string, accountId = 'alice') =>
    (await stepUp.issue({ accountId, purpose, ...STEP_UP_BINDING })).reveal()
  return { scenario, apiKey, issueStepUp }
}
