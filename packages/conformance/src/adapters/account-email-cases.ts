import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { accountEmailWorld } from './account-email-world.js'
import { ORIGIN, SAME_ORIGIN, SESSION_COOKIE } from './account-world.js'
import { type Browser, browser } from './factor-client.js'
import { type Answer, call } from './http-client.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>
type World = Awaited<ReturnType<typeof accountEmailWorld>>

const PASSWORD = 'a long and unusual passphrase'
const NEW_PASSWORD = 'another long and unusual passphrase'
const DELTA_SECONDS = /^\d+$/

async function started(fixture: AdapterFixture, options: Parameters<typeof accountEmailWorld>[0] = {}) {
  const world = await accountEmailWorld(options)
  const app = await fixture.start(world.scenario)
  return { world, url: app.url }
}

/** Signs up and verifies `address` over HTTP, then signs in: the browser with its session and the account id. */
async function verifiedAccount(world: World, url: string, address: string) {
  const client = browser(url)
  const signUp = await client.post('/auth/email/sign-up', { email: address, password: PASSWORD })
  if (signUp.status !== 202) throw new Error(`sign-up answered ${signUp.status}: ${signUp.text}`)
  const { flow, code } = await world.lastTo('verification', address)
  const verified = await client.post('/auth/email/verify', { flow, code })
  if (verified.status !== 200) throw new Error(`verify answered ${verified.status}: ${verified.text}`)
  const login = await client.post('/auth/login', { username: address, password: PASSWORD })
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${login.text}`)
  return { client, accountId: (login.json() as { accountId: string }).accountId }
}

function checkHeaders(check: (ok: boolean, message: string) => void, answer: Answer, what: string) {
  check((answer.headers['cache-control'] ?? '').includes('no-store'), `${what}: not no-store`)
  check(answer.headers['referrer-policy'] === 'no-referrer', `${what}: no Referrer-Policy: no-referrer`)
}

/** What an enumeration would compare: status, the body's shape and size, the headers' names. */
function shape(answer: Answer) {
  const body = answer.json() as Record<string, unknown>
  return JSON.stringify({
    status: answer.status,
    keys: Object.keys(body).sort(),
    lengths: Object.values(body).map((value) => String(value).length),
    headers: Object.keys(answer.headers)
      .filter((name) => name !== 'date' && name !== 'content-length' && name !== 'etag')
      .sort(),
  })
}

const wrongCode = (code: string, offset = 1) => String((Number(code) + offset) % 1_000_000).padStart(6, '0')

async function resetCode(world: World, client: Browser, address: string) {
  // each message a second later than the one before, so the newest is the last by creation
  world.clock.advance(1000)
  const asked = await client.post('/auth/password/forgot', { email: address })
  if (asked.status !== 202) throw new Error(`forgot answered ${asked.status}: ${asked.text}`)
  return world.lastTo('password-reset', address)
}

export const accountEmailCases: readonly Case[] = [
  conformanceCase(
    'adapter.email-sign-up-uniform',
    'sign-up answers a new and a taken address alike (202, same body shape, no-store, no-referrer); the taken one gets a notice, not a code',
    async (fixture, check) => {
      const { world, url } = await started(fixture)
      await verifiedAccount(world, url, 'taken@example.com')
      const client = browser(url)
      const taken = await client.post('/auth/email/sign-up', {
        email: 'taken@example.com',
        password: PASSWORD,
      })
      const fresh = await client.post('/auth/email/sign-up', {
        email: 'fresh@example.com',
        password: PASSWORD,
      })
      check(
        taken.status === 202 && fresh.status === 202,
        `sign-up answered ${taken.status} and ${fresh.status}`,
      )
      check(shape(taken) === shape(fresh), `the answers differ: ${shape(taken)} vs ${shape(fresh)}`)
      checkHeaders(check, taken, 'sign-up')
      const notice = await world.lastTo('existing-account-sign-up', 'taken@example.com')
      check(
        notice.message !== undefined && !('code' in notice.message),
        'no existing-account notice (or it has a code)',
      )
      check(
        (await world.lastTo('verification', 'fresh@example.com')).code !== '',
        'no code for the new address',
      )
      const bad = await client.post('/auth/email/sign-up', {
        email: 'fresh@example.com',
        password: 'password',
      })
      checkProblem(check, bad, 400, 'local.password_screened')
      checkHeaders(check, bad, 'a refused sign-up')
      const form = await call(url, '/auth/email/sign-up', {
        method: 'POST',
        headers: {
          ...SAME_ORIGIN,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: `email=form%40example.com&password=${encodeURIComponent(PASSWORD)}`,
      })
      check(form.status === 202, `a form sign-up answered ${form.status}`)
    },
  ),
  conformanceCase(
    'adapter.email-verify-once',
    'a verification code verifies once: a replay is account_email.invalid_code; two requests racing on one code have one winner',
    async (fixture, check) => {
      const { world, url } = await started(fixture)
      const client = browser(url)
      await client.post('/auth/email/sign-up', { email: 'race@example.com', password: PASSWORD })
      const { flow, code } = await world.lastTo('verification', 'race@example.com')
      const raced = await Promise.all([
        client.post('/auth/email/verify', { flow, code }),
        client.post('/auth/email/verify', { flow, code }),
      ])
      const statuses = raced.map((answer) => answer.status).sort()
      check(statuses[0] === 200 && statuses[1] === 400, `two racing verifies answered ${statuses.join(', ')}`)
      checkProblem(
        check,
        await client.post('/auth/email/verify', { flow, code }),
        400,
        'account_email.invalid_code',
      )
      const login = await client.post('/auth/login', { username: 'race@example.com', password: PASSWORD })
      check(login.status === 200, `sign-in with the verified address answered ${login.status}`)
    },
  ),
  conformanceCase(
    'adapter.email-code-attempts',
    'guessing a reset code until the attempt limit deletes it: the right code fails after',
    async (fixture, check) => {
      const { world, url } = await started(fixture, { maxAttempts: 3 })
      const { client } = await verifiedAccount(world, url, 'guess@example.com')
      const { flow, code } = await resetCode(world, client, 'guess@example.com')
      for (let guess = 1; guess <= 3; guess += 1) {
        const answer = await client.post('/auth/password/reset', {
          flow,
          code: wrongCode(code, guess),
          password: NEW_PASSWORD,
        })
        checkProblem(check, answer, 400, 'account_email.invalid_code')
      }
      const right = await client.post('/auth/password/reset', { flow, code, password: NEW_PASSWORD })
      checkProblem(check, right, 400, 'account_email.invalid_code')
    },
  ),
  conformanceCase(
    'adapter.email-code-purpose-expiry',
    'a code of another purpose is refused (a reset code does not verify, a verification code does not reset); an expired reset code is refused',
    async (fixture, check) => {
      const { world, url } = await started(fixture)
      const { client } = await verifiedAccount(world, url, 'purpose@example.com')
      const reset = await resetCode(world, client, 'purpose@example.com')
      checkProblem(
        check,
        await client.post('/auth/email/verify', { flow: reset.flow, code: reset.code }),
        400,
        'account_email.invalid_code',
      )
      await client.post('/auth/email/sign-up', { email: 'other@example.com', password: PASSWORD })
      const verification = await world.lastTo('verification', 'other@example.com')
      const crossed = await client.post('/auth/password/reset', {
        flow: verification.flow,
        code: verification.code,
        password: NEW_PASSWORD,
      })
      checkProblem(check, crossed, 400, 'account_email.invalid_code')
      world.clock.advance(3600 * 1000 + 1000)
      const late = await client.post('/auth/password/reset', {
        flow: reset.flow,
        code: reset.code,
        password: NEW_PASSWORD,
      })
      checkProblem(check, late, 400, 'account_email.invalid_code')
    },
  ),
  conformanceCase(
    'adapter.password-reset-uniform',
    'a reset request answers a known and an unknown address alike (202, same body shape and headers)',
    async (fixture, check) => {
      const { world, url } = await started(fixture)
      const { client } = await verifiedAccount(world, url, 'known@example.com')
      const known = await client.post('/auth/password/forgot', { email: 'known@example.com' })
      const unknown = await client.post('/auth/password/forgot', { email: 'unknown@example.com' })
      check(
        known.status === 202 && unknown.status === 202,
        `forgot answered ${known.status} and ${unknown.status}`,
      )
      check(shape(known) === shape(unknown), `the answers differ: ${shape(known)} vs ${shape(unknown)}`)
      checkHeaders(check, unknown, 'forgot')
      check(
        (await world.lastTo('unknown-account-reset', 'unknown@example.com')).message !== undefined,
        'no notice to the unknown address',
      )
    },
  ),
  conformanceCase(
    'adapter.password-reset-host',
    'the reset link is on the public origin whatever Host and X-Forwarded-Host say; a GET of the link consumes nothing',
    async (fixture, check) => {
      const { world, url } = await started(fixture)
      await verifiedAccount(world, url, 'host@example.com')
      const poisoned = await call(url, '/auth/password/forgot', {
        method: 'POST',
        headers: {
          ...SAME_ORIGIN,
          host: 'evil.example',
          'x-forwarded-host': 'evil.example',
          'x-forwarded-proto': 'http',
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({ email: 'host@example.com' }),
      })
      check(poisoned.status === 202, `forgot answered ${poisoned.status}`)
      const { link, flow, code } = await world.lastTo('password-reset', 'host@example.com')
      check(link !== undefined && new URL(link).origin === ORIGIN, `the link is ${link}`)
      check(link?.includes('evil.example') !== true, 'the link names the forged host')
      // what a link scanner does: GETs of the page and of the reset route
      const target = link === undefined ? '/' : `${new URL(link).pathname}${new URL(link).search}`
      await call(url, target)
      const scanned = await call(url, `/auth/password/reset?flow=${flow}`)
      check(scanned.status !== 200, `a GET of the reset route answered ${scanned.status}`)
      const client = browser(url)
      const done = await client.post('/auth/password/reset', { flow, code, password: NEW_PASSWORD })
      check(done.status === 200, `the code after the GETs answered ${done.status}: ${done.text}`)
    },
  ),
  conformanceCase(
    'adapter.password-reset-epoch',
    'a reset ends the sessions of the account (an old session is refused) and does not sign in; the new password works',
    async (fixture, check) => {
      const { world, url } = await started(fixture)
      const { client: old } = await verifiedAccount(world, url, 'epoch@example.com')
      check((await old.get('/me')).status === 200, 'the session does not work before the reset')
      const visitor = browser(url)
      const { flow, code } = await resetCode(world, visitor, 'epoch@example.com')
      const done = await visitor.post('/auth/password/reset', { flow, code, password: NEW_PASSWORD })
      check(done.status === 200, `reset answered ${done.status}: ${done.text}`)
      checkHeaders(check, done, 'reset')
      check(!visitor.cookies.has(SESSION_COOKIE), 'the reset signed in')
      const after = await old.get('/me')
      check(after.status === 401, `the old session answered ${after.status} after the reset`)
      const login = await browser(url).post('/auth/login', {
        username: 'epoch@example.com',
        password: NEW_PASSWORD,
      })
      check(login.status === 200, `the new password answered ${login.status}`)
      const notice = await world.lastTo('security-notification', 'epoch@example.com')
      check(notice.message !== undefined, 'no password-reset notification')
    },
  ),
  conformanceCase(
    'adapter.password-reset-totp',
    'a reset of a TOTP account without its code changes nothing; with a wrong code it is refused; with the code it resets',
    async (fixture, check) => {
      const { world, url } = await started(fixture)
      const { accountId } = await verifiedAccount(world, url, 'totp@example.com')
      const totp = await world.enableTotp(accountId)
      const visitor = browser(url)
      const { flow, code } = await resetCode(world, visitor, 'totp@example.com')
      const first = await visitor.post('/auth/password/reset', { flow, code, password: NEW_PASSWORD })
      check(first.status === 202, `the reset of a TOTP account answered ${first.status}: ${first.text}`)
      const { pendingToken, resetToken } = first.json() as { pendingToken?: string; resetToken?: string }
      const oldLogin = await browser(url).post('/auth/login', {
        username: 'totp@example.com',
        password: PASSWORD,
      })
      check(
        oldLogin.status === 202,
        `the old password answered ${oldLogin.status} (the reset changed it without TOTP)`,
      )
      const wrong = await visitor.post('/auth/password/reset/second-factor', {
        resetToken,
        pendingToken,
        code: wrongCode(totp.code()),
      })
      checkProblem(check, wrong, 401, 'totp.invalid_code')
      const forged = await visitor.post('/auth/password/reset/second-factor', {
        resetToken: `${(resetToken ?? '').split('.')[0]}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
        pendingToken,
        code: totp.code(),
      })
      checkProblem(check, forged, 400, 'account_email.reset_pending_invalid')
      // the forged try spent the pending sign-in: start again from a new code
      const again = await resetCode(world, visitor, 'totp@example.com')
      const second = await visitor.post('/auth/password/reset', {
        flow: again.flow,
        code: again.code,
        password: NEW_PASSWORD,
      })
      check(
        second.status === 202,
        `the reset after a spent pending step answered ${second.status}: ${second.text}`,
      )
      const step = second.json() as { pendingToken?: string; resetToken?: string }
      world.clock.advance(30_000)
      const done = await visitor.post('/auth/password/reset/second-factor', {
        resetToken: step.resetToken,
        pendingToken: step.pendingToken,
        code: totp.code(),
      })
      check(done.status === 200, `the second step answered ${done.status}: ${done.text}`)
      const newLogin = await browser(url).post('/auth/login', {
        username: 'totp@example.com',
        password: NEW_PASSWORD,
      })
      check(newLogin.status === 202, `the new password answered ${newLogin.status}`)
    },
  ),
  conformanceCase(
    'adapter.account-email-outage',
    'with the database down (the code and account stores of the flows), sign-up and reset requests answer 503 with Retry-After, not 500',
    async (fixture, check) => {
      const { world, url } = await started(fixture)
      world.codeState.down = true
      const client = browser(url)
      for (const [path, body] of [
        ['/auth/password/forgot', { email: 'down@example.com' }],
        ['/auth/email/sign-up', { email: 'down@example.com', password: PASSWORD }],
      ] as const) {
        const answer = await client.post(path, body)
        checkProblem(check, answer, 503, 'account_email.unavailable')
        check(DELTA_SECONDS.test(answer.headers['retry-after'] ?? ''), `${path}: no Retry-After`)
      }
    },
  ),
]
