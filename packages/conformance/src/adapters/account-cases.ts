import { BODY_TOO_LARGE_CODE, BODY_TOO_LARGE_STATUS } from '@portcullis/http'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import {
  accountWorld,
  CROSS_SITE,
  LOCAL_BODY_LIMIT,
  OWN_BODY_LIMIT,
  PASSWORD,
  SAME_ORIGIN,
  SESSION_COOKIE,
} from './account-world.js'
import { type Answer, call } from './http-client.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

const json = { 'content-type': 'application/json' }
const credentials = JSON.stringify({ username: 'alice', password: PASSWORD })

/** The session cookie a sign-in set (`name=value`), and its whole `Set-Cookie` line. */
function sessionOf(answer: Answer): { cookie: string; line: string } | undefined {
  const line = answer.setCookies.find((value) => value.startsWith(`${SESSION_COOKIE}=`))
  return line === undefined ? undefined : { cookie: line.split(';')[0] as string, line }
}

async function signedIn(fixture: AdapterFixture) {
  const app = await fixture.start(await accountWorld())
  const post = (target: string, headers: Record<string, string>, body?: string) =>
    call(app.url, target, { method: 'POST', headers, ...(body === undefined ? {} : { body }) })
  const registered = await post('/auth/register', { ...SAME_ORIGIN, ...json }, credentials)
  if (registered.status !== 201)
    throw new Error(`registration answered ${registered.status}: ${registered.text}`)
  const login = await post('/auth/login', { ...SAME_ORIGIN, ...json }, credentials)
  const session = sessionOf(login)
  return { url: app.url, post, login, session }
}

export const accountCases: readonly Case[] = [
  conformanceCase(
    'adapter.sign-in-cookie',
    'sign-in sets a __Host- session cookie (HttpOnly, Secure, Path=/, SameSite, no Domain) that authenticates',
    async (fixture, check) => {
      const { url, login, session } = await signedIn(fixture)
      check(login.status === 200, `login answered ${login.status}`)
      check((login.headers['cache-control'] ?? '').includes('no-store'), 'sign-in answer is cacheable')
      check(session !== undefined, 'no session cookie')
      const flags = (session?.line ?? '').split(';').map((part) => part.trim().toLowerCase())
      for (const flag of ['httponly', 'secure', 'path=/'])
        check(flags.includes(flag), `cookie without ${flag}`)
      check(
        flags.some((flag) => flag.startsWith('samesite=')),
        'cookie without SameSite',
      )
      check(!flags.some((flag) => flag.startsWith('domain=')), 'cookie with a Domain')
      const me = await call(url, '/me', { headers: { cookie: session?.cookie ?? '' } })
      check(me.status === 200, `the session does not authenticate: ${me.status}`)
    },
  ),
  conformanceCase(
    'adapter.csrf',
    'an unsafe cross-site request carrying the session cookie is refused, on any route, before it runs',
    async (fixture, check) => {
      const { post, session } = await signedIn(fixture)
      const cookie = session?.cookie ?? ''
      checkProblem(check, await post('/me', { cookie, ...CROSS_SITE }), 403, 'local.csrf_refused')
      checkProblem(check, await post('/me', { cookie }), 403, 'local.csrf_refused')
      checkProblem(check, await post('/auth/logout', { cookie, ...CROSS_SITE }), 403, 'local.csrf_refused')
      const sameOrigin = await post('/me', { cookie, ...SAME_ORIGIN })
      check(sameOrigin.status === 200, `a same-origin request was refused: ${sameOrigin.status}`)
      const crossSiteLogin = await post('/auth/login', { ...CROSS_SITE, ...json }, credentials)
      checkProblem(check, crossSiteLogin, 403, 'local.csrf_refused')
    },
  ),
  conformanceCase(
    'adapter.sign-out',
    'sign-out clears the cookie and ends the session on the server: the old cookie no longer authenticates',
    async (fixture, check) => {
      const { url, post, session } = await signedIn(fixture)
      const cookie = session?.cookie ?? ''
      const logout = await post('/auth/logout', { cookie, ...SAME_ORIGIN })
      check(logout.status === 204, `logout answered ${logout.status}`)
      const cleared = sessionOf(logout)
      check(cleared !== undefined && /max-age=0/i.test(cleared.line), 'the session cookie was not cleared')
      checkProblem(check, await call(url, '/me', { headers: { cookie } }), 401, 'authentication.required')
    },
  ),
  conformanceCase(
    'adapter.body-limits',
    'generated routes refuse a body over the limit, malformed JSON and other media types as problems',
    async (fixture, check) => {
      const { post } = await signedIn(fixture)
      const huge = JSON.stringify({ username: 'alice', password: 'x'.repeat(32 * 1024) })
      checkProblem(check, await post('/auth/token', json, huge), BODY_TOO_LARGE_STATUS, BODY_TOO_LARGE_CODE)
      checkProblem(check, await post('/auth/token', json, '{"username":'), 400, 'request.invalid_json')
      const text = await post('/auth/token', { 'content-type': 'text/plain' }, 'alice')
      checkProblem(check, text, 415, 'request.unsupported_media_type')
      const wrong = await post(
        '/auth/token',
        json,
        JSON.stringify({ username: 'alice', password: 'wrong-password' }),
      )
      check(wrong.status === 401, `a wrong password answered ${wrong.status}`)
    },
  ),
  conformanceCase(
    'adapter.body-limit-named',
    "a 413 names the limit that refused the body: the generated routes' and the application's own",
    async (fixture, check) => {
      const { post, session } = await signedIn(fixture)
      const cookie = session?.cookie ?? ''
      const named = (answer: Answer, limit: number, where: string) => {
        checkProblem(check, answer, BODY_TOO_LARGE_STATUS, BODY_TOO_LARGE_CODE)
        const detail =
          answer.status === BODY_TOO_LARGE_STATUS ? (answer.json() as { detail?: string }).detail : ''
        check(
          detail === `the body must be at most ${limit} bytes`,
          `${where}: the 413 detail is "${detail}", not the limit ${limit}`,
        )
      }
      const huge = JSON.stringify({ username: 'alice', password: 'x'.repeat(2 * LOCAL_BODY_LIMIT) })
      named(await post('/auth/token', json, huge), LOCAL_BODY_LIMIT, 'a local-account route')
      const own = JSON.stringify({ note: 'x'.repeat(2 * OWN_BODY_LIMIT) })
      named(await post('/me', { cookie, ...SAME_ORIGIN, ...json }, own), OWN_BODY_LIMIT, 'an own route')
      const small = await post('/me', { cookie, ...SAME_ORIGIN, ...json }, JSON.stringify({ note: 'hi' }))
      check(small.status === 200, `a body under the limit answered ${small.status}`)
    },
  ),
  conformanceCase(
    'adapter.password-screened',
    'sign-up with a common password is a 400 local.password_screened that never echoes it; nothing is created',
    async (fixture, check) => {
      const app = await fixture.start(await accountWorld())
      const post = (body: Record<string, string>) =>
        call(app.url, '/auth/register', {
          method: 'POST',
          headers: { ...SAME_ORIGIN, ...json },
          body: JSON.stringify(body),
        })
      for (const password of ['Password1', 'ｑｗｅｒｔｙ１２３', 'carol2024!']) {
        const refused = await post({ username: 'carol', password })
        checkProblem(check, refused, 400, 'local.password_screened')
        check(!refused.text.includes(password), 'the refusal echoes the password')
        check(!refused.text.toLowerCase().includes(password.toLowerCase()), 'the refusal echoes the password')
      }
      // Nothing was created by the refusals: the username is still free.
      const created = await post({ username: 'carol', password: PASSWORD })
      check(created.status === 201, `a screened-clean sign-up answered ${created.status}: ${created.text}`)
    },
  ),
  conformanceCase(
    'adapter.tokens',
    'the token routes issue a bearer pair that authenticates; a refreshed-away refresh token is refused',
    async (fixture, check) => {
      const { url, post } = await signedIn(fixture)
      const issued = await post('/auth/token', json, credentials)
      check(issued.status === 200, `token answered ${issued.status}`)
      const pair = issued.json() as { access_token: string; refresh_token: string }
      const me = await call(url, '/me', { headers: { authorization: `Bearer ${pair.access_token}` } })
      check(me.status === 200, `the access token does not authenticate: ${me.status}`)
      const refresh = JSON.stringify({ refresh_token: pair.refresh_token })
      check((await post('/auth/token/refresh', json, refresh)).status === 200, 'refresh refused')
      check(
        (await post('/auth/token/refresh', json, refresh)).status === 401,
        'a reused refresh token worked',
      )
    },
  ),
]
