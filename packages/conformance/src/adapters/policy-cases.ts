import { type Check, type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { type Answer, call } from './http-client.js'
import { LEAKED_SECRET, policyWorld } from './policy-world.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

async function started(fixture: AdapterFixture) {
  const world = policyWorld()
  const app = await fixture.start(world.scenario)
  return {
    ...world,
    get: (target: string, headers: Record<string, string> = {}) => call(app.url, target, { headers }),
    url: app.url,
  }
}

/** A problem answer: the status, `application/problem+json`, `no-store`, and exactly the RFC 9457 members. */
export function checkProblem(check: Check, answer: Answer, status: number, code: string): void {
  check(answer.status === status, `expected ${status}, got ${answer.status}`)
  check(
    (answer.headers['content-type'] ?? '').startsWith('application/problem+json'),
    `content type ${answer.headers['content-type']}`,
  )
  check((answer.headers['cache-control'] ?? '').includes('no-store'), 'a problem answer without no-store')
  const body = answer.json() as Record<string, unknown>
  check(body.code === code, `expected code ${code}, got ${String(body.code)}`)
  check(
    body.status === status && body.type === 'about:blank' && typeof body.title === 'string',
    'problem members',
  )
  const members = Object.keys(body).filter(
    (key) => !['type', 'title', 'status', 'code', 'detail'].includes(key),
  )
  check(members.length === 0, `extra problem members: ${members.join(', ')}`)
}

export const policyCases: readonly Case[] = [
  conformanceCase(
    'adapter.anonymous-route',
    'an anonymous() route answers without credentials, with the security header baseline',
    async (fixture, check) => {
      const { get } = await started(fixture)
      const answer = await get('/public')
      check(answer.status === 200, `status ${answer.status}`)
      check((answer.json() as { hello?: string }).hello === 'world', 'body')
      check(answer.headers['x-content-type-options'] === 'nosniff', 'no X-Content-Type-Options: nosniff')
      check(answer.headers['x-frame-options'] === 'DENY', 'no X-Frame-Options: DENY')
      check(answer.headers['x-powered-by'] === undefined, 'X-Powered-By is sent')
    },
  ),
  conformanceCase(
    'adapter.required-challenge',
    'a required() route refuses a request without credentials: 401 problem with a Bearer challenge',
    async (fixture, check) => {
      const { get } = await started(fixture)
      const answer = await get('/me')
      checkProblem(check, answer, 401, 'authentication.required')
      check(/^Bearer\b/.test(answer.headers['www-authenticate'] ?? ''), 'no Bearer challenge')
      const granted = await get('/me', bearer('alice-token'))
      check(
        granted.status === 200 && (granted.json() as { principal: string }).principal === 'alice',
        'alice',
      )
      check(
        (granted.headers['cache-control'] ?? '').includes('no-store'),
        'authenticated answer is cacheable',
      )
    },
  ),
  conformanceCase(
    'adapter.invalid-never-downgraded',
    'a presented but invalid credential is 401 even under optional(), never anonymous',
    async (fixture, check) => {
      const { get } = await started(fixture)
      const anonymousAnswer = await get('/maybe')
      check(anonymousAnswer.status === 200, `nothing presented: ${anonymousAnswer.status}`)
      check((anonymousAnswer.json() as { personalised: boolean }).personalised === false, 'personalised')
      checkProblem(check, await get('/maybe', bearer('forged')), 401, 'authentication.required')
      checkProblem(check, await get('/maybe', { 'x-api-key': 'forged' }), 401, 'authentication.required')
    },
  ),
  conformanceCase(
    'adapter.unavailable-beats-invalid',
    'a mechanism that cannot decide is 503 with Retry-After, even beside an invalid credential',
    async (fixture, check) => {
      const { get, apiKey } = await started(fixture)
      apiKey.state.down = true
      apiKey.state.retryAfterSeconds = 7
      const answer = await get('/me', { 'x-api-key': 'alice-key', ...bearer('forged') })
      checkProblem(check, answer, 503, 'authentication.unavailable')
      check(answer.headers['retry-after'] === '7', `Retry-After ${answer.headers['retry-after']}`)
    },
  ),
  conformanceCase('adapter.any-of', 'anyOf accepts either mechanism alone', async (fixture, check) => {
    const { get } = await started(fixture)
    check((await get('/either', bearer('bob-token'))).status === 200, 'bearer alone refused')
    check((await get('/either', { 'x-api-key': 'bob-key' })).status === 200, 'API key alone refused')
    checkProblem(check, await get('/either'), 401, 'authentication.required')
  }),
  conformanceCase(
    'adapter.all-of',
    'allOf needs every mechanism, agreeing on one principal',
    async (fixture, check) => {
      const { get } = await started(fixture)
      checkProblem(check, await get('/both', bearer('alice-token')), 401, 'authentication.required')
      const both = await get('/both', { ...bearer('alice-token'), 'x-api-key': 'alice-key' })
      check(both.status === 200, `both presented: ${both.status}`)
      const disagreeing = await get('/both', { ...bearer('alice-token'), 'x-api-key': 'bob-key' })
      checkProblem(check, disagreeing, 401, 'authentication.required')
    },
  ),
  conformanceCase(
    'adapter.duplicate-credential',
    'a credential header sent twice is malformed, not one of its copies',
    async (fixture, check) => {
      const { url } = await started(fixture)
      const answer = await call(url, '/me', {
        headers: { authorization: ['Bearer alice-token', 'Bearer bob-token'] },
      })
      checkProblem(check, answer, 401, 'authentication.required')
    },
  ),
  conformanceCase(
    'adapter.guard-forbidden',
    'a guard refusing an authenticated caller is 403 without naming the missing grant',
    async (fixture, check) => {
      const { get } = await started(fixture)
      const answer = await get('/reports', bearer('bob-token'))
      checkProblem(check, answer, 403, 'authorization.denied')
      check(!answer.text.includes('reports:read'), 'the body names the missing scope')
      check((await get('/reports', bearer('alice-token'))).status === 200, 'alice refused')
    },
  ),
  conformanceCase(
    'adapter.tenant-path-forgery',
    'the tenant guard reads the routed path parameter: no spelling of another tenant grants access',
    async (fixture, check) => {
      const { get } = await started(fixture)
      const own = await get('/tenants/acme/report', bearer('alice-token'))
      check(own.status === 200 && (own.json() as { tenant: string }).tenant === 'acme', 'own tenant refused')
      for (const target of [
        '/tenants/globex/report',
        '/tenants/GLOBEX/report',
        '/tenants/acme/../globex/report',
        '/tenants/acme%2F..%2Fglobex/report',
        '/tenants/globex/report?tenantId=acme',
        '/tenants/%67lobex/report',
      ]) {
        const answer = await get(target, bearer('alice-token'))
        const body = answer.status === 200 ? (answer.json() as { tenant?: string }) : undefined
        check(answer.status !== 200 || body?.tenant === 'acme', `${target} answered 200 for ${body?.tenant}`)
        check(answer.status >= 400, `${target} answered ${answer.status}`)
      }
    },
  ),
  conformanceCase(
    'adapter.step-up-one-use',
    'a step-up credential opens its route once; the second presentation is 401 step-up.required',
    async (fixture, check) => {
      const { url, issueStepUp } = await started(fixture)
      const token = await issueStepUp('delete')
      const post = () =>
        call(url, '/account/delete', {
          method: 'POST',
          headers: { ...bearer('alice-token'), 'portcullis-step-up': token },
        })
      const first = await post()
      check(first.status === 200, `first presentation: ${first.status}`)
      checkProblem(check, await post(), 401, 'step-up.required')
      const other = await issueStepUp('another-purpose')
      const wrongPurpose = await call(url, '/account/delete', {
        method: 'POST',
        headers: { ...bearer('alice-token'), 'portcullis-step-up': other },
      })
      checkProblem(check, wrongPurpose, 401, 'step-up.required')
    },
  ),
  conformanceCase(
    'adapter.problem-bodies',
    'errors are problem+json: a thrown HttpProblem as given, anything else 500 without message or stack',
    async (fixture, check) => {
      const { get } = await started(fixture)
      const failed = await get('/fails')
      checkProblem(check, failed, 500, 'internal.error')
      check(
        !failed.text.includes('hunter2') && !failed.text.includes(LEAKED_SECRET),
        'the error message leaked',
      )
      check(!/\bat .+:\d+:\d+/.test(failed.text), 'a stack trace leaked')
      const teapot = await get('/teapot')
      checkProblem(check, teapot, 418, 'kitchen.teapot')
      check((teapot.json() as { detail?: string }).detail === 'I am a teapot', 'HttpProblem detail')
    },
  ),
  conformanceCase(
    'adapter.openapi',
    'the OpenAPI 3.1 document lists every route with its security alternatives and problem responses',
    async (fixture, check) => {
      const { get } = await started(fixture)
      const answer = await get('/openapi.json')
      check(answer.status === 200, `status ${answer.status}`)
      const document = answer.json() as {
        openapi: string
        paths: Record<
          string,
          Record<
            string,
            { security: unknown[]; responses: Record<string, unknown>; parameters?: { name: string }[] }
          >
        >
        components: { securitySchemes: Record<string, unknown> }
      }
      check(document.openapi === '3.1.0', 'version')
      check(document.paths['/hidden'] === undefined, 'an exclude() route is documented')
      check(document.paths['/openapi.json'] === undefined, 'the document documents itself')
      check(JSON.stringify(document.paths['/public']?.get?.security) === '[]', 'anonymous security is not []')
      check(
        JSON.stringify(document.paths['/both']?.get?.security) ===
          JSON.stringify([{ bearer: [], 'api-key': [] }]),
        'allOf security',
      )
      check(
        JSON.stringify(document.paths['/maybe']?.get?.security) === JSON.stringify([{ bearer: [] }, {}]),
        'optional security',
      )
      const report = document.paths['/tenants/{tenantId}/report']?.get
      check(report !== undefined, 'the tenant route is missing or not templated')
      check(report?.parameters?.some((parameter) => parameter.name === 'tenantId') === true, 'path parameter')
      for (const status of ['401', '403', '503'])
        check(report?.responses[status] !== undefined, `no ${status}`)
      check(document.paths['/account/delete']?.post !== undefined, 'the POST route is missing')
      check(Object.keys(document.components.securitySchemes).sort().join() === 'api-key,bearer', 'schemes')
    },
  ),
]
