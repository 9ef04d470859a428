import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { CROSS_SITE, PASSWORD, SAME_ORIGIN, SESSION_COOKIE } from './account-world.js'
import { activityWorld, DEVICES, register, signedInDevice } from './activity-world.js'
import { checkNoStore } from './answer-checks.js'
import { type Browser, browser } from './factor-client.js'
import { type Answer, call } from './http-client.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

interface ItemBody {
  readonly id: string
  readonly at: string
  readonly kind: string
  readonly method: string | null
  readonly deviceName: string
  readonly address: string | null
  readonly reason: string | null
}
interface SessionBody {
  readonly id: string
  readonly current: boolean
  readonly deviceName: string
  readonly createdAt: string
  readonly lastSeenAt: string
}

const sessionsOf = async (client: Browser): Promise<SessionBody[]> =>
  ((await client.get('/auth/activity/sessions')).json() as { sessions: SessionBody[] }).sessions

/** Events of one request and the next are apart in time, so newest-first order is theirs. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

const me = async (client: Browser): Promise<number> => (await client.get('/me')).status

/** Alice on her laptop and on her phone (Bob registered too); the world's log and writer. */
async function aliceOnTwoDevices(fixture: AdapterFixture) {
  const world = await activityWorld()
  const app = await fixture.start(world.scenario)
  await register(app.url, 'alice')
  await register(app.url, 'bob')
  const laptop = await signedInDevice(app.url, 'alice', 'laptop')
  await tick()
  const phone = await signedInDevice(app.url, 'alice', 'phone')
  await tick()
  return { ...world, url: app.url, laptop, phone }
}

export const activityCases: readonly Case[] = [
  conformanceCase(
    'adapter.activity-recent',
    'recent activity shows the own sign-ins with method, device and address and a failed attempt, newest first, page by page',
    async (fixture, check) => {
      const w = await aliceOnTwoDevices(fixture)
      const wrong = await browser(w.url).post(
        '/auth/login',
        { username: 'alice', password: `${PASSWORD}!` },
        { 'user-agent': DEVICES.phone.userAgent },
      )
      check(wrong.status === 401, `a wrong password answered ${wrong.status}`)
      // Bob's own sign-in is never on Alice's page.
      await signedInDevice(w.url, 'bob', 'laptop')
      await w.written()
      const answer = await w.laptop.get('/auth/activity')
      check(answer.status === 200, `activity answered ${answer.status}: ${answer.text}`)
      checkNoStore(check, answer)
      const { items, nextCursor } = answer.json() as { items: ItemBody[]; nextCursor: string | null }
      const shown = items.map((item) => `${item.kind} ${item.method} ${item.deviceName}`)
      check(
        JSON.stringify(shown) ===
          JSON.stringify([
            // The failed attempt names the device it came from (its User-Agent, parsed).
            `sign_in_failed password ${DEVICES.phone.name}`,
            `signed_in password ${DEVICES.phone.name}`,
            `signed_in password ${DEVICES.laptop.name}`,
          ]),
        `activity: ${JSON.stringify(shown)}`,
      )
      check(items[0]?.reason === 'bad_password', `the failure's reason: ${items[0]?.reason}`)
      check(
        items.every((item) => item.address === null || /^(::ffff:)?127\.0\.0\.1$|^::1$/.test(item.address)),
        `addresses: ${items.map((item) => item.address).join(', ')}`,
      )
      check(nextCursor === null, 'a cursor after the last page')
      const times = items.map((item) => Date.parse(item.at))
      check(
        times.every((time, index) => index === 0 || time <= (times[index - 1] as number)),
        'not newest first',
      )
      // One item a page: every item once, in the same order, then no cursor.
      const paged: string[] = []
      let cursor: string | null = null
      for (let page = 0; page < 5; page += 1) {
        const next: Answer = await w.laptop.get(
          `/auth/activity?limit=1${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
        )
        const body = next.json() as { items: ItemBody[]; nextCursor: string | null }
        paged.push(...body.items.map((item) => item.id))
        cursor = body.nextCursor
        if (cursor === null) break
      }
      check(
        JSON.stringify(paged) === JSON.stringify(items.map((item) => item.id)),
        `pages: ${paged.join(', ')}`,
      )
      const anonymous = await browser(w.url).get('/auth/activity')
      check(anonymous.status === 401, `an anonymous read answered ${anonymous.status}`)
    },
  ),
  conformanceCase(
    'adapter.activity-malformed-page',
    'a malformed limit or a forged cursor of the activity route is 400 problem+json, never a page',
    async (fixture, check) => {
      const w = await aliceOnTwoDevices(fixture)
      for (const query of ['limit=0', 'limit=101', 'limit=x', 'limit=1&limit=2', 'limit=-1', 'limit=1e1']) {
        checkProblem(check, await w.laptop.get(`/auth/activity?${query}`), 400, 'activity.invalid_input')
      }
      for (const cursor of ['zzzz', `${'a'.repeat(11)}.${'b'.repeat(16)}`, '1.abc', 'x'.repeat(200)]) {
        const answer = await w.laptop.get(`/auth/activity?cursor=${encodeURIComponent(cursor)}`)
        check(answer.status === 400, `cursor ${cursor.slice(0, 20)} answered ${answer.status}`)
        const code = (answer.json() as { code?: string }).code
        check(
          code === 'security_log.invalid_cursor' || code === 'activity.invalid_input',
          `cursor ${cursor.slice(0, 20)}: ${code}`,
        )
      }
    },
  ),
  conformanceCase(
    'adapter.activity-sessions',
    'the sessions route names each device, marks this device, and never carries a session id or cookie',
    async (fixture, check) => {
      const w = await aliceOnTwoDevices(fixture)
      const answer = await w.laptop.get('/auth/activity/sessions')
      check(answer.status === 200, `sessions answered ${answer.status}: ${answer.text}`)
      checkNoStore(check, answer)
      const sessions = (answer.json() as { sessions: SessionBody[] }).sessions
      check(sessions.length === 2, `${sessions.length} sessions`)
      check(
        sessions[0]?.current === true && sessions[0].deviceName === DEVICES.laptop.name,
        `this device: ${JSON.stringify(sessions[0])}`,
      )
      check(
        sessions[1]?.current === false && sessions[1].deviceName === DEVICES.phone.name,
        `the other device: ${JSON.stringify(sessions[1])}`,
      )
      check(
        sessions.every((session) => Date.parse(session.lastSeenAt) >= Date.parse(session.createdAt)),
        'last seen before created',
      )
      for (const client of [w.laptop, w.phone]) {
        const cookie = client.cookies.get(SESSION_COOKIE) ?? '(none)'
        check(!answer.text.includes(cookie), 'the answer carries a session cookie value')
      }
      check(!answer.text.includes('Mozilla'), 'the answer carries a raw User-Agent')
      const phone = await sessionsOf(w.phone)
      check(
        phone[0]?.current === true && phone[0].deviceName === DEVICES.phone.name,
        `the phone's own view: ${JSON.stringify(phone[0])}`,
      )
    },
  ),
  conformanceCase(
    'adapter.activity-sign-out-one',
    'signing out another device ends that session at once; this device stays signed in',
    async (fixture, check) => {
      const w = await aliceOnTwoDevices(fixture)
      const other = (await sessionsOf(w.laptop)).find((session) => !session.current)
      check(other !== undefined, 'no other session listed')
      const answer = await w.laptop.post(`/auth/activity/sessions/${other?.id}/sign-out`)
      check(answer.status === 200, `sign-out answered ${answer.status}: ${answer.text}`)
      checkNoStore(check, answer)
      check((await me(w.phone)) === 401, 'the signed-out phone is still let in')
      check((await me(w.laptop)) === 200, 'this device was signed out too')
      const left = await sessionsOf(w.laptop)
      check(left.length === 1 && left[0]?.current === true, `sessions left: ${left.length}`)
      const again = await w.laptop.post(`/auth/activity/sessions/${other?.id}/sign-out`)
      checkProblem(check, again, 404, 'activity.session_not_found')
      await w.written()
      const items = ((await w.laptop.get('/auth/activity')).json() as { items: ItemBody[] }).items
      check(items[0]?.kind === 'signed_out', `the newest item: ${items[0]?.kind}`)
    },
  ),
  conformanceCase(
    'adapter.activity-session-forgery',
    "another account's session id, an unknown one or a forged path segment is refused (404) and ends nothing",
    async (fixture, check) => {
      const w = await aliceOnTwoDevices(fixture)
      const bob = await signedInDevice(w.url, 'bob', 'laptop')
      const bobs = (await sessionsOf(bob))[0]?.id ?? ''
      checkProblem(
        check,
        await w.laptop.post(`/auth/activity/sessions/${bobs}/sign-out`),
        404,
        'activity.session_not_found',
      )
      check((await me(bob)) === 200, "Alice's request signed Bob out")
      const mine = (await sessionsOf(w.laptop)).map((session) => session.id)
      for (const forged of [
        'A'.repeat(22),
        `${mine[0]}x`,
        `${mine[0]?.slice(0, -1)}`,
        '..%2F..%2Fsessions',
        '%00',
        'a'.repeat(300),
      ]) {
        const answer = await call(w.url, `/auth/activity/sessions/${forged}/sign-out`, {
          method: 'POST',
          headers: { ...SAME_ORIGIN, cookie: w.laptop.cookieHeader() },
        })
        // An overlong segment may be refused by the router itself (Fastify: 414, its parameter bound).
        const refused = answer.status === 404 || (forged.length > 255 && answer.status === 414)
        check(refused, `${forged.slice(0, 24)} answered ${answer.status}`)
      }
      check((await sessionsOf(w.laptop)).length === 2, 'a forged id ended a session')
      check((await me(w.phone)) === 200, 'a forged id signed the phone out')
    },
  ),
  conformanceCase(
    'adapter.activity-sign-out-others',
    'signing out everywhere else refuses every other session and access token at once; this device gets a fresh session',
    async (fixture, check) => {
      const w = await aliceOnTwoDevices(fixture)
      const token = await browser(w.url).post('/auth/token', { username: 'alice', password: PASSWORD })
      const accessToken = (token.json() as { access_token?: string }).access_token ?? ''
      check(token.status === 200 && accessToken !== '', `token sign-in answered ${token.status}`)
      const bearer = { authorization: `Bearer ${accessToken}` }
      check((await browser(w.url).get('/me', bearer)).status === 200, 'the access token is refused before')
      const oldCookie = w.laptop.cookieHeader()
      const answer = await w.laptop.post('/auth/activity/sessions/sign-out-others')
      check(answer.status === 200, `sign-out-others answered ${answer.status}: ${answer.text}`)
      checkNoStore(check, answer)
      const body = answer.json() as { csrfToken?: unknown }
      check(typeof body.csrfToken === 'string', 'no CSRF token of the fresh session')
      check(
        answer.setCookies.some((line) => line.startsWith(`${SESSION_COOKIE}=`)),
        'no fresh session cookie',
      )
      check((await me(w.laptop)) === 200, 'this device was signed out')
      check((await me(w.phone)) === 401, 'the phone is still let in')
      check((await browser(w.url).get('/me', bearer)).status === 401, 'the access token is still let in')
      check((await browser(w.url).get('/me', { cookie: oldCookie })).status === 401, 'the old cookie works')
      const left = await sessionsOf(w.laptop)
      check(left.length === 1 && left[0]?.current === true, `sessions left: ${left.length}`)
      await w.written()
      const items = ((await w.laptop.get('/auth/activity')).json() as { items: ItemBody[] }).items
      check(items[0]?.kind === 'signed_out_everywhere', `the newest item: ${items[0]?.kind}`)
    },
  ),
  conformanceCase(
    'adapter.activity-csrf',
    'a cross-site sign-out of a session or of every other one is refused (403) and ends nothing',
    async (fixture, check) => {
      const w = await aliceOnTwoDevices(fixture)
      const other = (await sessionsOf(w.laptop)).find((session) => !session.current)?.id ?? ''
      for (const path of [
        `/auth/activity/sessions/${other}/sign-out`,
        '/auth/activity/sessions/sign-out-others',
      ]) {
        const answer = await w.laptop.post(path, undefined, CROSS_SITE)
        checkProblem(check, answer, 403, 'local.csrf_refused')
      }
      check((await me(w.phone)) === 200, 'a cross-site request signed the phone out')
      check((await sessionsOf(w.laptop)).length === 2, 'a cross-site request ended a session')
    },
  ),
]
