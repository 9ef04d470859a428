import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { type Answer, call } from './http-client.js'
import { type OAuthTestProvider, oauthWorld, SESSION_COOKIE } from './oauth-world.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

/** The fixture of the OAuth cases: the adapter fixture and the OpenID Provider of this case. */
export interface OAuthFixture extends AdapterFixture {
  readonly provider: OAuthTestProvider
}

type Case = ConformanceCase<OAuthFixture>

const BINDING_COOKIE = '__Host-portcullis-oauth'
const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }

const cookieOf = (answer: Answer, prefix: string) =>
  answer.setCookies.find((line) => line.startsWith(prefix) && !/max-age=0/i.test(line))

const pair = (line: string | undefined) => (line === undefined ? '' : (line.split(';')[0] as string))

async function started(fixture: OAuthFixture) {
  const app = await fixture.start(oauthWorld(fixture.provider))
  const get = (target: string, cookie = '') =>
    call(app.url, target, { headers: { ...BROWSER, ...(cookie === '' ? {} : { cookie }) } })
  const post = (target: string, cookie: string) =>
    call(app.url, target, { method: 'POST', headers: { ...BROWSER, cookie } })
  /** Begins a sign-in and runs the IdP part as `subject`: the binding cookie and the callback target. */
  const begin = async (subject: string) => {
    const begun = await get('/auth/oauth/idp/login?return_to=/settings')
    const callback = await fixture.provider.authorize(begun.headers.location ?? '', subject)
    return { begun, binding: pair(cookieOf(begun, BINDING_COOKIE)), callback }
  }
  return { url: app.url, get, post, begin }
}

export const oauthCases: readonly Case[] = [
  conformanceCase(
    'adapter.oauth-callback-binding',
    'a callback completes only in the browser that began it; a foreign or missing binding never burns it',
    async (fixture, check) => {
      const { get, begin } = await started(fixture)
      const { begun, binding, callback } = await begin('alice')
      check(begun.status === 303, `login answered ${begun.status}`)
      check((begun.headers['cache-control'] ?? '').includes('no-store'), 'login answer is cacheable')
      const line = (cookieOf(begun, BINDING_COOKIE) ?? '').toLowerCase()
      for (const flag of ['httponly', 'secure', 'path=/', 'samesite=lax'])
        check(line.includes(flag), `binding without ${flag}`)

      const missing = await get(callback)
      check(
        missing.status === 401 && cookieOf(missing, SESSION_COOKIE) === undefined,
        `no binding: ${missing.status}`,
      )
      const other = await begin('mallory')
      const foreign = await get(callback, other.binding)
      check(
        foreign.status === 401 && cookieOf(foreign, SESSION_COOKIE) === undefined,
        `foreign: ${foreign.status}`,
      )

      const done = await get(callback, binding)
      check(
        done.status === 303 && done.headers.location === '/settings',
        `callback: ${done.status} ${done.text}`,
      )
      const session = pair(cookieOf(done, SESSION_COOKIE))
      check(session !== '', 'no session was established')
      check((await get('/me', session)).status === 200, 'the new session does not authenticate')
      const replay = await get(callback, binding)
      check(replay.status === 401, `a replayed callback answered ${replay.status}`)
      check((replay.headers['content-type'] ?? '').startsWith('application/problem+json'), 'not a problem')
      check(cookieOf(replay, SESSION_COOKIE) === undefined, 'a replayed callback signed in')
    },
  ),
  conformanceCase(
    'adapter.oauth-step-up',
    'reauthentication issues a purpose-bound step-up cookie (Strict) that opens its route exactly once',
    async (fixture, check) => {
      const { get, post, begin } = await started(fixture)
      const signIn = await begin('alice')
      const session = pair(cookieOf(await get(signIn.callback, signIn.binding), SESSION_COOKIE))
      const reauth = await post('/auth/oauth/idp/reauthenticate/delete-account', session)
      check(reauth.status === 303, `reauthenticate answered ${reauth.status}: ${reauth.text}`)
      const binding = pair(cookieOf(reauth, BINDING_COOKIE))
      const callback = await fixture.provider.authorize(reauth.headers.location ?? '', 'alice')
      const done = await get(callback, `${session}; ${binding}`)
      check(done.status === 303, `reauthentication callback answered ${done.status}: ${done.text}`)
      const stepUpLine = cookieOf(done, '__Host-portcullis-step-up-')
      check(stepUpLine !== undefined && /samesite=strict/i.test(stepUpLine), `step-up cookie: ${stepUpLine}`)
      const cookies = `${session}; ${pair(stepUpLine)}`
      const first = await post('/account/delete', cookies)
      check(first.status === 200, `the step-up route answered ${first.status}`)
      check(
        first.setCookies.some((value) => value.startsWith('__Host-portcullis-step-up-')),
        'cookie not cleared',
      )
      checkProblem(check, await post('/account/delete', cookies), 401, 'step-up.required')
    },
  ),
]
