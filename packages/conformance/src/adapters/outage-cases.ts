import { MemoryAccountStore } from '@portcullis/core/accounts'
import { PortcullisError } from '@portcullis/core/errors'
import { MemorySessionStore, type SessionStore } from '@portcullis/core/local-accounts'
import { anyOf, required } from '@portcullis/core/policy'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { PASSWORD, SAME_ORIGIN, SESSION_COOKIE, sessionLocalAccounts } from './account-world.js'
import { call } from './http-client.js'
import { alice, switchableApiKey } from './mechanisms.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture, AdapterScenario } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

/** RFC 9110 section 10.2.3: `Retry-After` as delta-seconds (what Portcullis sends). */
const DELTA_SECONDS = /^\d+$/

/** What a store adapter throws when its database is down: class `unavailable`, no retry hint. */
export const STORE_DOWN_CODE = 'conformance.store_down'

/**
 * `store` with every method rejecting while `state.down`, the way a database-backed store fails in an
 * outage (a typed `unavailable` error that knows no retry delay).
 */
export function switchable<T extends object>(store: T, state: { down: boolean }): T {
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) =>
        state.down
          ? Promise.reject(new PortcullisError(STORE_DOWN_CODE, 'unavailable', 'the store is down'))
          : (value as (...parameters: unknown[]) => unknown).apply(target, args)
    },
  })
}

/**
 * The outage world: local accounts (session profile) over memory stores that can be switched off, an
 * API-key mechanism whose store can be switched off without a retry hint, `GET /me` (session) and
 * `GET /key` (API key).
 */
export function outageWorld() {
  const state = { down: false }
  const apiKey = switchableApiKey({ 'alice-key': { principal: alice } })
  const local = sessionLocalAccounts({
    accounts: switchable(new MemoryAccountStore(), state),
    sessions: switchable<SessionStore>(new MemorySessionStore(), state),
  })
  const names = local.mechanisms.map((mechanism) => mechanism.name) as [string, ...string[]]
  const respond = ({ security }: { security: { principal: { id: string } | null } }) => ({
    id: security.principal?.id ?? null,
  })
  const scenario: AdapterScenario = {
    security: { mechanisms: [...local.mechanisms, apiKey.mechanism] },
    routes: [
      { method: 'GET', path: '/me', options: { auth: anyOf(...names) }, respond },
      { method: 'GET', path: '/key', options: { auth: required('api-key') }, respond },
    ],
    local,
  }
  return { scenario, apiKey, state }
}

export const outageCases: readonly Case[] = [
  conformanceCase(
    'adapter.unavailable-retry-after',
    'a dependency that is down answers 503 with a Retry-After in delta-seconds on a session route, an API-key route and a local sign-in, even when its cause knows no delay',
    async (fixture, check) => {
      const { scenario, apiKey, state } = outageWorld()
      const app = await fixture.start(scenario)
      const json = { ...SAME_ORIGIN, 'content-type': 'application/json' }
      const credentials = JSON.stringify({ username: 'alice', password: PASSWORD })
      const registered = await call(app.url, '/auth/register', {
        method: 'POST',
        headers: json,
        body: credentials,
      })
      check(registered.status === 201, `registration answered ${registered.status}`)

      state.down = true
      apiKey.state.down = true
      // A session id no instance has cached: the request has to reach the session store.
      const session = `${SESSION_COOKIE}=${'A'.repeat(43)}`
      const answers = {
        'session route': await call(app.url, '/me', { headers: { cookie: session } }),
        'API-key route': await call(app.url, '/key', { headers: { 'x-api-key': 'alice-key' } }),
        'local sign-in': await call(app.url, '/auth/login', {
          method: 'POST',
          headers: json,
          body: credentials,
        }),
      }
      for (const [where, answer] of Object.entries(answers)) {
        const code = where === 'local sign-in' ? STORE_DOWN_CODE : 'authentication.unavailable'
        checkProblem(check, answer, 503, code)
        const retryAfter = answer.headers['retry-after']
        check(
          retryAfter !== undefined && DELTA_SECONDS.test(retryAfter),
          `${where}: 503 with Retry-After ${retryAfter ?? '(none)'}`,
        )
      }

      // the same routes answer again once the stores are back
      state.down = false
      apiKey.state.down = false
      const key = await call(app.url, '/key', { headers: { 'x-api-key': 'alice-key' } })
      check(key.status === 200, `API-key route after the outage: ${key.status}`)
      const login = await call(app.url, '/auth/login', { method: 'POST', headers: json, body: credentials })
      check(login.status === 200, `sign-in after the outage: ${login.status}`)
    },
  ),
]
