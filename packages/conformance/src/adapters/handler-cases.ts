import { anonymous, required } from '@portcullis/core/policy'
import { HttpProblem } from '@portcullis/http'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { call } from './http-client.js'
import { alice, staticBearer } from './mechanisms.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture, AdapterScenario } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

const BEARER = { authorization: 'Bearer alice-token' }
const JSON_BODY = { 'content-type': 'application/json' }

/** The handler's own cache policy of an authenticated answer. */
const OWN_CACHE_CONTROL = 'private, max-age=60'

/** The challenge a handler sends with its own 401 problem. */
const OWN_CHALLENGE = 'Bearer realm="conformance", error="invalid_token"'

/** The codes a 400 for a body that is not JSON may carry: a body parser's, or Portcullis' body reader's. */
const MALFORMED_BODY_CODES: ReadonlySet<string> = new Set(['request.invalid', 'request.invalid_json'])

/**
 * The handler world: one bearer credential (alice) and the routes whose handlers do what applications
 * do: read a JSON body, set their own `Cache-Control`, answer their own 401 with a challenge.
 */
function handlerWorld() {
  const runs = { echo: 0 }
  const scenario: AdapterScenario = {
    security: {
      mechanisms: [staticBearer({ 'alice-token': { principal: alice } })],
      openapi: { info: { title: 'Handlers', version: '1.0.0' } },
    },
    routes: [
      {
        method: 'POST',
        path: '/echo',
        options: { auth: required() },
        readsJson: true,
        respond: ({ body }) => {
          runs.echo += 1
          return { received: body }
        },
      },
      {
        method: 'GET',
        path: '/cached',
        options: { auth: required() },
        cacheControl: OWN_CACHE_CONTROL,
        respond: ({ security }) => ({ principal: security.principal?.id ?? null }),
      },
      {
        method: 'GET',
        path: '/uncached',
        options: { auth: required() },
        respond: ({ security }) => ({ principal: security.principal?.id ?? null }),
      },
      {
        method: 'GET',
        path: '/challenged',
        options: { auth: anonymous() },
        respond: () => {
          throw new HttpProblem({
            status: 401,
            code: 'billing.token_expired',
            detail: 'The billing token expired',
            headers: { 'WWW-Authenticate': OWN_CHALLENGE },
          })
        },
      },
    ],
  }
  return { scenario, runs }
}

export const handlerCases: readonly Case[] = [
  conformanceCase(
    'adapter.handler-cache-control',
    'an authenticated answer is no-store unless its handler set its own Cache-Control, which is kept',
    async (fixture, check) => {
      const app = await fixture.start(handlerWorld().scenario)
      const own = await call(app.url, '/cached', { headers: BEARER })
      check(own.status === 200, `the handler's route answered ${own.status}`)
      check(
        own.headers['cache-control'] === OWN_CACHE_CONTROL,
        `the handler's Cache-Control was replaced by ${own.headers['cache-control']}`,
      )
      check((own.json() as { principal?: string }).principal === 'alice', 'the answer is not alice')
      const plain = await call(app.url, '/uncached', { headers: BEARER })
      check(plain.status === 200, `the route without a cache header answered ${plain.status}`)
      check(
        plain.headers['cache-control'] === 'no-store',
        `an authenticated answer is ${plain.headers['cache-control']}`,
      )
      // the refusal of the same route is a problem, never cacheable
      checkProblem(check, await call(app.url, '/cached'), 401, 'authentication.required')
    },
  ),
  conformanceCase(
    'adapter.malformed-json',
    'a JSON body that does not parse is 400 problem+json without the parser message; the handler never answers',
    async (fixture, check) => {
      const world = handlerWorld()
      const app = await fixture.start(world.scenario)
      const post = (body: string, headers: Record<string, string> = BEARER) =>
        call(app.url, '/echo', { method: 'POST', headers: { ...headers, ...JSON_BODY }, body })
      const parsed = await post('{"note":"hi"}')
      check(parsed.status === 200, `a JSON body answered ${parsed.status}`)
      const received = parsed.status === 200 ? (parsed.json() as { received?: unknown }).received : undefined
      check(JSON.stringify(received) === '{"note":"hi"}', 'the handler did not receive the parsed body')
      for (const body of ['{"note": ', 'note=hi', '{"note":"hi"}}']) {
        const refused = await post(body)
        check(refused.status === 400, `the body ${JSON.stringify(body)} answered ${refused.status}`)
        if (refused.status !== 400) continue
        const { code } = refused.json() as { code?: string }
        check(MALFORMED_BODY_CODES.has(code ?? ''), `the body ${JSON.stringify(body)} answered ${code}`)
        checkProblem(check, refused, 400, code ?? '')
        check(
          // the detail may say the body is not JSON; never what the parser saw, or where
          !/unexpected|position|syntax|line \d|column|token|note|hi"/i.test(refused.text),
          `the parser's message leaked: ${refused.text}`,
        )
      }
      check(world.runs.echo === 1, `the handler answered ${world.runs.echo} times`)
      // the route's policy still stands before anything is served
      checkProblem(check, await post('{"note":"hi"}', {}), 401, 'authentication.required')
    },
  ),
  conformanceCase(
    'adapter.handler-challenge',
    "a handler's own 401 problem keeps the WWW-Authenticate challenge it carries (RFC 9110)",
    async (fixture, check) => {
      const app = await fixture.start(handlerWorld().scenario)
      const answer = await call(app.url, '/challenged')
      checkProblem(check, answer, 401, 'billing.token_expired')
      check(
        answer.headers['www-authenticate'] === OWN_CHALLENGE,
        `the challenge is ${answer.headers['www-authenticate']}`,
      )
    },
  ),
]
