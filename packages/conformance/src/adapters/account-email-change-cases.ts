import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { emailChangeWorld } from './account-email-change-world.js'
import { PASSWORD, SESSION_COOKIE } from './account-world.js'
import { checkNoStoreNoReferrer } from './answer-checks.js'
import { type Browser, browser, passwordStepUp, signedInBrowser } from './factor-client.js'
import type { Answer } from './http-client.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

const STEP_UP_HEADER = 'portcullis-step-up'

/** Alice signed in (session), with the verified primary address `alice@example.com`. */
async function aliceWorld(fixture: AdapterFixture) {
  const world = await emailChangeWorld()
  const app = await fixture.start(world.scenario)
  const alice = await signedInBrowser(app.url, 'alice')
  const accountId = (await alice.get('/me')).json() as { id: string }
  await world.verifiedAddress(accountId.id, 'alice@example.com')
  const change = async (client: Browser, email: string, token?: string) =>
    client.post('/auth/email/change', { email }, token === undefined ? {} : { [STEP_UP_HEADER]: token })
  const requestChange = async (email: string) => {
    world.clock.advance(1000)
    const answer = await change(alice, email, await passwordStepUp(alice, 'email-change'))
    if (answer.status !== 202) throw new Error(`email change answered ${answer.status}: ${answer.text}`)
    return answer
  }
  return { ...world, url: app.url, alice, aliceId: accountId.id, change, requestChange }
}

export const accountEmailChangeCases: readonly Case[] = [
  conformanceCase(
    'adapter.email-change-step-up',
    'an email change without an email-change step-up is refused (401) and nothing is mailed',
    async (fixture, check) => {
      const w = await aliceWorld(fixture)
      checkProblem(check, await w.change(w.alice, 'new@example.com'), 401, 'step-up.required')
      const other = await passwordStepUp(w.alice, 'delete-account')
      checkProblem(check, await w.change(w.alice, 'new@example.com', other), 401, 'step-up.required')
      check((await w.messages()).length === 0, 'mail was written for a refused change')
      const anonymous = await browser(w.url).post('/auth/email/change', { email: 'new@example.com' })
      check(anonymous.status === 401, `an anonymous change answered ${anonymous.status}`)
    },
  ),
  conformanceCase(
    'adapter.email-change-typo',
    'an email change to a mistyped address changes nothing: the old address still signs in',
    async (fixture, check) => {
      const w = await aliceWorld(fixture)
      const answer = await w.requestChange('alice@exmaple.com')
      checkNoStoreNoReferrer(check, answer)
      const body = answer.json() as { flow?: unknown }
      check(typeof body.flow === 'string', 'no flow handle')
      const addresses = await w.addresses(w.aliceId)
      check(
        addresses.length === 1 && addresses[0] === 'alice@example.com primary verified',
        `addresses changed: ${addresses.join(', ')}`,
      )
      const notice = await w.lastOf('email-change-notice')
      check(notice?.message.to.address === 'alice@example.com', 'the old address was not told')
      const verification = await w.lastOf('email-change-verification')
      check(verification?.message.to.address === 'alice@exmaple.com', 'the new address got no code')
      const fresh = browser(w.url)
      const login = await fresh.post('/auth/login', { username: 'alice@example.com', password: PASSWORD })
      check(
        login.status === 200 && fresh.cookies.has(SESSION_COOKIE),
        `the old address signs in: ${login.status}`,
      )
      const typo = await browser(w.url).post('/auth/login', {
        username: 'alice@exmaple.com',
        password: PASSWORD,
      })
      check(typo.status === 401, `the mistyped address signs in: ${typo.status}`)
    },
  ),
  conformanceCase(
    'adapter.email-change-wrong-account',
    "completing an email change with another account's session is refused and spends the code",
    async (fixture, check) => {
      const w = await aliceWorld(fixture)
      const bob = await signedInBrowser(w.url, 'bob')
      await w.requestChange('new@example.com')
      const sent = await w.lastOf('email-change-verification')
      const code = { flow: sent?.flow, code: sent?.code }
      checkProblem(
        check,
        await bob.post('/auth/email/change/confirm', code),
        400,
        'account_email.invalid_code',
      )
      checkProblem(
        check,
        await w.alice.post('/auth/email/change/confirm', code),
        400,
        'account_email.invalid_code',
      )
      const addresses = await w.addresses(w.aliceId)
      check(
        addresses.join(', ') === 'alice@example.com primary verified',
        `addresses: ${addresses.join(', ')}`,
      )
    },
  ),
  conformanceCase(
    'adapter.email-change-undo',
    'a completed email change moves the primary address and renews the session; its undo link works once',
    async (fixture, check) => {
      const w = await aliceWorld(fixture)
      await w.requestChange('new@example.com')
      const sent = await w.lastOf('email-change-verification')
      const undo = await w.lastOf('email-change-notice')
      const before = w.alice.cookieHeader()
      const done = await w.alice.post('/auth/email/change/confirm', { flow: sent?.flow, code: sent?.code })
      check(done.status === 200, `confirm answered ${done.status}: ${done.text}`)
      checkNoStoreNoReferrer(check, done)
      check(
        done.setCookies.some((line) => line.startsWith(`${SESSION_COOKIE}=`)),
        'the confirmation set no fresh session cookie',
      )
      const old = await w.alice.get('/me', { cookie: before })
      check(old.status === 401, `the session from before the change still works: ${old.status}`)
      check((await w.alice.get('/me')).status === 200, 'the renewed session does not work')
      const moved = await w.addresses(w.aliceId)
      check(moved[0] === 'new@example.com primary verified', `addresses after: ${moved.join(', ')}`)
      const anonymous = browser(w.url)
      const undone = await anonymous.post('/auth/email/change/undo', { flow: undo?.flow, code: undo?.code })
      check(undone.status === 200, `undo answered ${undone.status}: ${undone.text}`)
      checkNoStoreNoReferrer(check, undone)
      const restored = await w.addresses(w.aliceId)
      check(restored.join(', ') === 'alice@example.com primary verified', `addresses after undo: ${restored}`)
      check((await w.alice.get('/me')).status === 401, 'a session survived the undo')
      const again = await anonymous.post('/auth/email/change/undo', { flow: undo?.flow, code: undo?.code })
      checkProblem(check, again, 400, 'account_email.invalid_code')
    },
  ),
  conformanceCase(
    'adapter.sign-in-code',
    'sign-in by email code: the same answer for every address, one use, attempt-limited, expiring',
    async (fixture, check) => {
      const w = await aliceWorld(fixture)
      const client = browser(w.url)
      const known = await client.post('/auth/sign-in/code', { email: 'alice@example.com' })
      const unknown = await client.post('/auth/sign-in/code', { email: 'nobody@example.com' })
      check(known.status === 202 && unknown.status === 202, `statuses ${known.status} / ${unknown.status}`)
      checkNoStoreNoReferrer(check, known)
      const shape = (answer: Answer) => {
        const body = answer.json() as Record<string, unknown>
        return `${Object.keys(body).sort().join(',')} ${String(body.flow).length} ${String(body.expiresAt)}`
      }
      check(shape(known) === shape(unknown), `bodies differ: ${shape(known)} / ${shape(unknown)}`)
      check(known.headers['content-type'] === unknown.headers['content-type'], 'content types differ')
      const mailed = (await w.messages()).filter((message) => message.kind === 'sign-in-code')
      check(
        mailed.length === 1 && mailed[0]?.to.address === 'alice@example.com',
        'mail for the unknown address',
      )
      const sent = await w.lastOf('sign-in-code')
      const signIn = await client.post('/auth/sign-in/code/verify', { flow: sent?.flow, code: sent?.code })
      check(signIn.status === 200 && client.cookies.has(SESSION_COOKIE), `sign-in answered ${signIn.status}`)
      check((await client.get('/me')).status === 200, 'the code sign-in does not authenticate')
      const replay = await browser(w.url).post('/auth/sign-in/code/verify', {
        flow: sent?.flow,
        code: sent?.code,
      })
      checkProblem(check, replay, 400, 'account_email.invalid_code')

      w.clock.advance(1000)
      await client.post('/auth/sign-in/code', { email: 'alice@example.com' })
      const guessed = await w.lastOf('sign-in-code')
      const wrong = guessed?.code === '000000' ? '111111' : '000000'
      const guesser = browser(w.url)
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const answer = await guesser.post('/auth/sign-in/code/verify', { flow: guessed?.flow, code: wrong })
        checkProblem(check, answer, 400, 'account_email.invalid_code')
      }
      const afterLimit = await guesser.post('/auth/sign-in/code/verify', {
        flow: guessed?.flow,
        code: guessed?.code,
      })
      checkProblem(check, afterLimit, 400, 'account_email.invalid_code')

      w.clock.advance(1000)
      await client.post('/auth/sign-in/code', { email: 'alice@example.com' })
      const late = await w.lastOf('sign-in-code')
      w.clock.advance(10 * 60 * 1000 + 1)
      const expired = await browser(w.url).post('/auth/sign-in/code/verify', {
        flow: late?.flow,
        code: late?.code,
      })
      checkProblem(check, expired, 400, 'account_email.invalid_code')
    },
  ),
  conformanceCase(
    'adapter.notification-opt-out',
    'a notification kind turned off sends no mail of that kind; the settings read back',
    async (fixture, check) => {
      const w = await aliceWorld(fixture)
      const initial = await w.alice.get('/auth/notifications')
      check(initial.status === 200, `settings answered ${initial.status}`)
      const first = initial.json() as { kinds?: string[]; optOuts?: string[] }
      check(
        (first.kinds ?? []).includes('address-changed') && first.optOuts?.length === 0,
        'initial settings',
      )
      const bad = await w.alice.post('/auth/notifications', { optOuts: ['no-such-kind'] })
      checkProblem(check, bad, 400, 'account_email.invalid_input')
      const set = await w.alice.post('/auth/notifications', { optOuts: ['address-changed'] })
      check(set.status === 200, `setting answered ${set.status}: ${set.text}`)
      const read = (await w.alice.get('/auth/notifications')).json() as { optOuts?: string[] }
      check(read.optOuts?.join(',') === 'address-changed', `settings read back: ${read.optOuts}`)
      await w.requestChange('new@example.com')
      const sent = await w.lastOf('email-change-verification')
      const done = await w.alice.post('/auth/email/change/confirm', { flow: sent?.flow, code: sent?.code })
      check(done.status === 200, `confirm answered ${done.status}`)
      const notes = (await w.messages()).filter((message) => message.kind === 'security-notification')
      check(notes.length === 0, `${notes.length} notification(s) of a kind turned off`)
      // The undo notice is not a setting: the old address is always told.
      const undo = await w.lastOf('email-change-notice')
      check(undo !== undefined, 'the old address was not told')
      // Turned on again, the same kind is mailed: the undo tells the old address.
      const on = await w.alice.post('/auth/notifications', { optOuts: [] })
      check(on.status === 200 && (on.json() as { optOuts?: string[] }).optOuts?.length === 0, 'turning on')
      const undone = await browser(w.url).post('/auth/email/change/undo', {
        flow: undo?.flow,
        code: undo?.code,
      })
      check(undone.status === 200, `undo answered ${undone.status}`)
      const after = (await w.messages()).filter((message) => message.kind === 'security-notification')
      check(
        after.length === 1 && after[0]?.to.address === 'alice@example.com',
        `${after.length} notification(s) once the kind is on again`,
      )
    },
  ),
]
