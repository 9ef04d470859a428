import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { CROSS_SITE, PASSWORD, SAME_ORIGIN, SESSION_COOKIE } from './account-world.js'
import { type Browser, browser, passwordStepUp, signedInBrowser } from './factor-client.js'
import { call } from './http-client.js'
import { IMPERSONATE, IMPERSONATE_ADMINISTRATORS, impersonationWorld } from './impersonation-world.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

const STEP_UP_HEADER = 'portcullis-step-up'
const PURPOSE = 'impersonation-start'
const REASON = 'support ticket 4711: the invoice page is empty'

interface Me {
  readonly id: string | null
  readonly impersonator: { accountId: string; impersonationId: string } | null
  readonly capabilities: readonly string[]
}

async function started(fixture: AdapterFixture, options: { readonly ttlSeconds?: number } = {}) {
  const world = impersonationWorld(options)
  world.grant('admin', [IMPERSONATE])
  const app = await fixture.start(world.scenario)
  const admin = await signedInBrowser(app.url, 'admin')
  const alice = await signedInBrowser(app.url, 'alice')
  const idOf = async (client: Browser) => ((await client.get('/me')).json() as Me).id as string
  const adminId = await idOf(admin)
  const aliceId = await idOf(alice)
  const impersonate = async (accountId: string, reason = REASON, token?: string) =>
    admin.post(
      '/auth/impersonation',
      { accountId, reason },
      { [STEP_UP_HEADER]: token ?? (await passwordStepUp(admin, PURPOSE)) },
    )
  return { world, app, admin, alice, adminId, aliceId, impersonate }
}

export const impersonationCases: readonly Case[] = [
  conformanceCase(
    'adapter.impersonation-start',
    'an administrator with a fresh step-up and a reason acts as the account: the principal carries the impersonator, the grants are the account’s; ending it hands the administrator session back',
    async (fixture, check) => {
      const { admin, adminId, aliceId, impersonate, world } = await started(fixture)
      check((await admin.get('/admin-only')).status === 200, 'the administrator cannot reach their own route')
      const answer = await impersonate(aliceId)
      check(answer.status === 201, `the start answered ${answer.status}: ${answer.text}`)
      check((answer.headers['cache-control'] ?? '').includes('no-store'), 'the start answer is cacheable')
      const body = answer.status === 201 ? (answer.json() as { impersonationId: string }) : undefined
      const me = (await admin.get('/me')).json() as Me
      check(me.id === aliceId, `the impersonation acts as ${me.id}, not the account`)
      check(
        me.impersonator?.accountId === adminId && me.impersonator.impersonationId === body?.impersonationId,
        'the principal does not carry its impersonator',
      )
      check(!me.capabilities.includes(IMPERSONATE), 'the impersonation holds the administrator’s grants')
      checkProblem(check, await admin.get('/admin-only'), 403, 'authorization.denied')
      const state = (await admin.get('/auth/impersonation')).json() as { impersonating?: boolean }
      check(state.impersonating === true, 'GET /auth/impersonation does not say so')
      const audit = world.recorded.find((event) => event.type === 'impersonation.started')
      check(
        audit !== undefined &&
          (audit as { actorId?: string }).actorId === adminId &&
          (audit as { accountId?: string }).accountId === aliceId &&
          (audit as { reason?: string }).reason === REASON,
        'no audit event names the administrator, the account and the reason',
      )
      const ended = await admin.post('/auth/impersonation/end')
      check(ended.status === 200, `the end answered ${ended.status}: ${ended.text}`)
      const back = (await admin.get('/me')).json() as Me
      check(back.id === adminId && back.impersonator === null, 'the administrator session did not come back')
      check((await admin.get('/admin-only')).status === 200, 'the administrator lost their own route')
      const over = world.recorded.find((event) => event.type === 'impersonation.ended')
      check((over as { actorId?: string } | undefined)?.actorId === adminId, 'no audit event of the end')
    },
  ),
  conformanceCase(
    'adapter.impersonation-refused',
    'a start without the capability, of an administrator, without a reason, or with a missing, replayed or cross-site step-up is refused and opens nothing',
    async (fixture, check) => {
      const { app, admin, alice, aliceId, adminId, impersonate, world } = await started(fixture)
      const own = await passwordStepUp(alice, PURPOSE)
      const unprivileged = await alice.post(
        '/auth/impersonation',
        { accountId: adminId, reason: REASON },
        { [STEP_UP_HEADER]: own },
      )
      checkProblem(check, unprivileged, 403, 'authorization.denied')
      world.grant('bob', [IMPERSONATE])
      const bob = await signedInBrowser(app.url, 'bob')
      const bobId = ((await bob.get('/me')).json() as Me).id as string
      checkProblem(check, await impersonate(bobId), 403, 'impersonation.target_is_administrator')
      world.grant('chief', [IMPERSONATE_ADMINISTRATORS])
      const chief = await signedInBrowser(app.url, 'chief')
      const chiefId = ((await chief.get('/me')).json() as Me).id as string
      checkProblem(check, await impersonate(chiefId), 403, 'impersonation.target_is_administrator')
      checkProblem(check, await impersonate(aliceId, '   '), 400, 'impersonation.invalid_input')
      checkProblem(check, await impersonate('no-such-account'), 404, 'impersonation.target_not_found')
      checkProblem(
        check,
        await admin.post('/auth/impersonation', { accountId: aliceId, reason: REASON }),
        401,
        'step-up.required',
      )
      const token = await passwordStepUp(admin, PURPOSE)
      check((await impersonate(aliceId, REASON, token)).status === 201, 'a fresh step-up was refused')
      await admin.post('/auth/impersonation/end')
      checkProblem(check, await impersonate(aliceId, REASON, token), 401, 'step-up.required')
      const forged = await call(app.url, '/auth/impersonation', {
        method: 'POST',
        headers: {
          ...CROSS_SITE,
          'content-type': 'application/x-www-form-urlencoded',
          cookie: admin.cookieHeader(),
          [STEP_UP_HEADER]: await passwordStepUp(admin, PURPOSE),
        },
        body: new URLSearchParams({ accountId: aliceId, reason: REASON }).toString(),
      })
      checkProblem(check, forged, 403, 'local.csrf_refused')
      const me = (await admin.get('/me')).json() as Me
      check(me.id === adminId && me.impersonator === null, 'a refused start changed the session')
      const starts = world.recorded.filter((event) => event.type === 'impersonation.started')
      check(starts.length === 1, `${starts.length} impersonations started, not the one allowed`)
    },
  ),
  conformanceCase(
    'adapter.impersonation-no-step-up',
    'an impersonation obtains no step-up credential (password change, email change, factors, deletion): 403 step-up.impersonated, even with the account’s password',
    async (fixture, check) => {
      const { admin, aliceId, impersonate } = await started(fixture)
      check((await impersonate(aliceId)).status === 201, 'the impersonation did not start')
      for (const purpose of [
        'password-add',
        'password-remove',
        'email-change',
        'totp-enroll',
        'totp-disable',
        'passkey-register',
        'passkey-remove',
        'delete-account',
        PURPOSE,
      ]) {
        const answer = await admin.post(`/auth/step-up/${purpose}`, { password: PASSWORD })
        checkProblem(check, answer, 403, 'step-up.impersonated')
        check(!answer.text.includes('stepUpToken'), `a ${purpose} step-up credential was issued`)
      }
      const change = await admin.post('/auth/password/change', {
        currentPassword: PASSWORD,
        newPassword: 'an entirely different passphrase',
      })
      checkProblem(check, change, 403, 'step-up.impersonated')
      const me = (await admin.get('/me')).json() as Me
      check(me.id === aliceId && me.impersonator !== null, 'the impersonation session ended on a refusal')
    },
  ),
  conformanceCase(
    'adapter.impersonation-outlasting',
    'an application route that would make what outlasts an impersonation refuses it: 403 impersonation.refused, an event naming the administrator; the account’s own session is served',
    async (fixture, check) => {
      const { admin, alice, adminId, aliceId, impersonate, world } = await started(fixture)
      const own = await alice.post('/keys', {})
      check(own.status === 200, `the account's own request answered ${own.status}: ${own.text}`)
      const answer = await impersonate(aliceId)
      check(answer.status === 201, 'the impersonation did not start')
      const { impersonationId } = (answer.json() ?? {}) as { impersonationId?: string }
      const refused = await admin.post('/keys', {})
      checkProblem(check, refused, 403, 'impersonation.refused')
      check(!refused.text.includes('issued'), 'the refused route answered its handler’s body')
      const events = world.recorded.filter((event) => event.type === 'impersonation.refused')
      check(events.length === 1, `${events.length} impersonation.refused events, not 1`)
      const event = events[0] as {
        accountId?: string
        actorId?: string
        impersonationId?: string
        act?: string
      }
      check(
        event?.accountId === aliceId &&
          event.actorId === adminId &&
          event.impersonationId === impersonationId &&
          event.act === 'api_key.issue',
        'the refusal does not name the account, the administrator, the impersonation and the act',
      )
      const me = (await admin.get('/me')).json() as Me
      check(me.id === aliceId && me.impersonator !== null, 'the impersonation session ended on a refusal')
    },
  ),
  conformanceCase(
    'adapter.impersonation-bound',
    'an impersonation outliving its bound is refused, and so is its session without the impersonation cookie',
    async (fixture, check) => {
      const { admin, aliceId, impersonate, world } = await started(fixture, { ttlSeconds: 600 })
      check((await impersonate(aliceId)).status === 201, 'the impersonation did not start')
      const session = admin.cookies.get(SESSION_COOKIE) ?? ''
      const bare = await call(admin.url, '/me', { headers: { cookie: `${SESSION_COOKIE}=${session}` } })
      checkProblem(check, bare, 401, 'authentication.required')
      world.clock.advance(599_000)
      check((await admin.get('/me')).status === 200, 'the impersonation ended before its bound')
      world.clock.advance(1_000)
      checkProblem(check, await admin.get('/me'), 401, 'authentication.required')
    },
  ),
  conformanceCase(
    'adapter.impersonation-administrator-sign-out',
    'the administrator signing out (another session of theirs) ends the impersonations they started',
    async (fixture, check) => {
      const { app, admin, aliceId, impersonate } = await started(fixture)
      check((await impersonate(aliceId)).status === 201, 'the impersonation did not start')
      check((await admin.get('/me')).status === 200, 'the impersonation does not authenticate')
      const elsewhere = await signedInBrowserAgain(app.url)
      const out = await elsewhere.post('/auth/logout')
      check(out.status === 204, `the administrator's sign-out answered ${out.status}`)
      let answer = await admin.get('/me')
      for (let attempt = 0; attempt < 50 && answer.status === 200; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10))
        answer = await admin.get('/me')
      }
      checkProblem(check, answer, 401, 'authentication.required')
    },
  ),
  conformanceCase(
    'adapter.impersonation-session-revoked',
    'a session of the account ended by its impersonation names the administrator and the impersonation in its event; one the person ends themself names nobody',
    async (fixture, check) => {
      const { app, admin, alice, adminId, aliceId, impersonate, world } = await started(fixture)
      const phone = await signedInBrowserAgain(app.url, 'alice')
      const tablet = await signedInBrowserAgain(app.url, 'alice')
      const handleOf = async (client: Browser) =>
        (
          (await client.get('/auth/sessions')).json() as { sessions: { id: string; current: boolean }[] }
        ).sessions.find((session) => session.current)?.id ?? ''
      const phoneHandle = await handleOf(phone)
      const tabletHandle = await handleOf(tablet)
      const revoke = (client: Browser, handle: string) =>
        call(app.url, `/auth/sessions/${handle}`, {
          method: 'DELETE',
          headers: { ...SAME_ORIGIN, cookie: client.cookieHeader() },
        })
      const answer = await impersonate(aliceId)
      check(answer.status === 201, `the impersonation did not start: ${answer.status}`)
      const impersonationId =
        answer.status === 201 ? (answer.json() as { impersonationId: string }).impersonationId : ''
      const byImpersonation = await revoke(admin, phoneHandle)
      check(
        byImpersonation.status === 204,
        `the impersonation's revocation answered ${byImpersonation.status}`,
      )
      const byPerson = await revoke(alice, tabletHandle)
      check(byPerson.status === 204, `the person's revocation answered ${byPerson.status}`)
      const revokedEvent = (handle: string) =>
        world.recorded.find(
          (event) =>
            event.type === 'session.revoked' &&
            event.sessionHandle === handle &&
            event.reason === 'revoked_by_account',
        ) as { accountId?: string; actorId?: string; impersonationId?: string } | undefined
      const theirs = revokedEvent(phoneHandle)
      check(
        theirs?.accountId === aliceId &&
          theirs.actorId === adminId &&
          theirs.impersonationId === impersonationId &&
          impersonationId !== '',
        `the impersonation's revocation event does not name the administrator: ${JSON.stringify(theirs)}`,
      )
      const own = revokedEvent(tabletHandle)
      check(
        own?.accountId === aliceId && own.actorId === undefined && own.impersonationId === undefined,
        `the person's own revocation event names an actor: ${JSON.stringify(own)}`,
      )
    },
  ),
  conformanceCase(
    'adapter.impersonation-sign-out-others',
    'signing out the other sessions from an impersonation names the administrator in the epoch move and every revocation, and renews nothing: the impersonation ends; the person doing it themself names nobody',
    async (fixture, check) => {
      const { app, admin, adminId, aliceId, impersonate, world } = await started(fixture)
      const phone = await signedInBrowserAgain(app.url, 'alice')
      const phoneHandle = (
        (await phone.get('/auth/sessions')).json() as { sessions: { id: string; current: boolean }[] }
      ).sessions.find((session) => session.current)?.id
      const answer = await impersonate(aliceId)
      check(answer.status === 201, `the impersonation did not start: ${answer.status}`)
      const impersonationId =
        answer.status === 201 ? (answer.json() as { impersonationId: string }).impersonationId : ''
      const from = world.recorded.length
      const out = await admin.post('/auth/activity/sessions/sign-out-others')
      check(out.status === 200, `the sign-out answered ${out.status}: ${out.text}`)
      check(out.setCookies.length === 0, 'the impersonation was renewed into a session of the account')
      checkProblem(check, await admin.get('/me'), 401, 'authentication.required')
      checkProblem(check, await phone.get('/me'), 401, 'authentication.required')
      const during = world.recorded.slice(from)
      const moved = during.find((event) => event.type === 'epoch.bumped') as
        | { accountId?: string; actorId?: string; impersonationId?: string }
        | undefined
      check(
        moved?.accountId === aliceId &&
          moved.actorId === adminId &&
          moved.impersonationId === impersonationId,
        `the epoch move does not name the administrator: ${JSON.stringify(moved)}`,
      )
      const revoked = during.filter((event) => event.type === 'session.revoked')
      check(
        revoked.some((event) => event.sessionHandle === phoneHandle),
        'the phone session’s revocation was not recorded',
      )
      for (const event of revoked) {
        check(
          event.actorId === adminId &&
            (event as { impersonationId?: string }).impersonationId === impersonationId,
          `a revocation does not name the administrator: ${JSON.stringify(event)}`,
        )
      }
      const herself = await signedInBrowserAgain(app.url, 'alice')
      const own = world.recorded.length
      const again = await herself.post('/auth/activity/sessions/sign-out-others')
      check(
        again.status === 200 && again.setCookies.length === 1,
        'the person’s own sign-out renewed nothing',
      )
      const ownMove = world.recorded.slice(own).find((event) => event.type === 'epoch.bumped')
      check(
        ownMove !== undefined && !('actorId' in ownMove) && !('impersonationId' in ownMove),
        `the person’s own epoch move names an actor: ${JSON.stringify(ownMove)}`,
      )
      check((await herself.get('/me')).status === 200, 'the person was not kept signed in')
    },
  ),
  conformanceCase(
    'adapter.impersonation-csrf-refused',
    'a cross-site request carrying an impersonation’s cookies is refused, and its csrf.refused names the account, the administrator and the impersonation; the person’s own names nobody',
    async (fixture, check) => {
      const { app, admin, alice, adminId, aliceId, impersonate, world } = await started(fixture)
      const answer = await impersonate(aliceId)
      check(answer.status === 201, `the impersonation did not start: ${answer.status}`)
      const impersonationId =
        answer.status === 201 ? (answer.json() as { impersonationId: string }).impersonationId : ''
      const refused = async (client: Browser) => {
        const from = world.recorded.length
        const forged = await call(app.url, '/auth/logout', {
          method: 'POST',
          headers: { ...CROSS_SITE, cookie: client.cookieHeader() },
        })
        checkProblem(check, forged, 403, 'local.csrf_refused')
        // The refusal is told once the session's account is read: bounded in turns, not in time.
        for (let turn = 0; turn < 200; turn += 1) {
          const event = world.recorded.slice(from).find((each) => each.type === 'csrf.refused')
          if (event !== undefined)
            return event as { accountId?: string; actorId?: string; impersonationId?: string }
          await new Promise((resolve) => setImmediate(resolve))
        }
        return undefined
      }
      const theirs = await refused(admin)
      check(
        theirs?.accountId === aliceId &&
          theirs.actorId === adminId &&
          theirs.impersonationId === impersonationId &&
          impersonationId !== '',
        `the impersonation's refusal does not name the administrator: ${JSON.stringify(theirs)}`,
      )
      const own = await refused(alice)
      check(
        own?.accountId === aliceId && own.actorId === undefined && own.impersonationId === undefined,
        `the person's own refusal names an actor: ${JSON.stringify(own)}`,
      )
      check((await admin.get('/me')).status === 200, 'the refused request ended the impersonation')
    },
  ),
]

/** A second browser of `username` (signed in again, not registered again). */
async function signedInBrowserAgain(url: string, username = 'admin'): Promise<Browser> {
  const client = browser(url)
  const login = await client.post('/auth/login', { username, password: PASSWORD })
  if (login.status !== 200) throw new Error(`login answered ${login.status}`)
  return client
}
