import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { PASSWORD, SESSION_COOKIE } from './account-world.js'
import { type Browser, browser, codeFor, passwordStepUp, signedInBrowser } from './factor-client.js'
import { factorWorld, type StepClock } from './factor-world.js'
import type { Answer } from './http-client.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

const STEP_UP_HEADER = 'portcullis-step-up'
const CREDENTIALS = { username: 'alice', password: PASSWORD }
const RECOVERY_CODE = /^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/

async function started(fixture: AdapterFixture) {
  const world = await factorWorld()
  const app = await fixture.start(world.scenario)
  return { clock: world.clock, url: app.url }
}

const statusOf = async (client: Browser) =>
  (await client.get('/auth/totp')).json() as { enabled?: boolean; pending?: boolean; recoveryCodes?: number }

const codesOf = (answer: Answer) => (answer.json() as { recoveryCodes?: string[] }).recoveryCodes ?? []

/** Enrolls and confirms TOTP over HTTP: the secret and the first recovery codes. */
async function enabled(client: Browser, clock: StepClock) {
  const token = await passwordStepUp(client, 'totp-enroll')
  const enrollment = await client.post('/auth/totp/enroll', undefined, { [STEP_UP_HEADER]: token })
  if (enrollment.status !== 200) throw new Error(`enroll answered ${enrollment.status}: ${enrollment.text}`)
  const { secret, uri } = enrollment.json() as { secret: string; uri: string }
  const confirmed = await client.post('/auth/totp/confirm', { code: codeFor(secret, clock.now()) })
  if (confirmed.status !== 200) throw new Error(`confirm answered ${confirmed.status}: ${confirmed.text}`)
  return { secret, uri, recoveryCodes: codesOf(confirmed) }
}

/** A password sign-in of a TOTP account in a fresh browser: its 202 and pending token. */
async function pendingSignIn(url: string) {
  const client = browser(url)
  const first = await client.post('/auth/login', CREDENTIALS)
  const pendingToken = (first.json() as { pendingToken?: string }).pendingToken ?? ''
  return { client, first, pendingToken }
}

export const totpCases: readonly Case[] = [
  conformanceCase(
    'adapter.totp-enroll',
    'TOTP enrolls after a totp-enroll step-up, turns on with a first code, then password sign-ins need a code',
    async (fixture, check) => {
      const { url, clock } = await started(fixture)
      const client = await signedInBrowser(url)
      checkProblem(check, await client.post('/auth/totp/enroll'), 401, 'step-up.required')
      const token = await passwordStepUp(client, 'totp-enroll')
      const enrollment = await client.post('/auth/totp/enroll', undefined, { [STEP_UP_HEADER]: token })
      check(enrollment.status === 200, `enroll answered ${enrollment.status}`)
      check((enrollment.headers['cache-control'] ?? '').includes('no-store'), 'the secret is cacheable')
      const { secret, uri } = enrollment.json() as { secret: string; uri: string }
      check(/^[A-Z2-7]{32}$/.test(secret), 'the secret is not base32')
      check(uri.startsWith('otpauth://totp/') && uri.includes('alice') && uri.includes(secret), `uri ${uri}`)
      const replayed = await client.post('/auth/totp/enroll', undefined, { [STEP_UP_HEADER]: token })
      checkProblem(check, replayed, 401, 'step-up.required')
      const pending = await statusOf(client)
      check(pending.enabled === false && pending.pending === true, `status ${JSON.stringify(pending)}`)

      const code = codeFor(secret, clock.now())
      const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0')
      checkProblem(check, await client.post('/auth/totp/confirm', { code: wrong }), 401, 'totp.invalid_code')
      const confirmed = await client.post('/auth/totp/confirm', { code })
      check(confirmed.status === 200, `confirm answered ${confirmed.status}`)
      const codes = codesOf(confirmed)
      check(codes.length === 10 && codes.every((item) => RECOVERY_CODE.test(item)), 'ten recovery codes')
      const on = await statusOf(client)
      check(on.enabled === true && on.recoveryCodes === 10, `status ${JSON.stringify(on)}`)

      const { client: visitor, first, pendingToken } = await pendingSignIn(url)
      check(first.status === 202, `a password sign-in answered ${first.status}`)
      check(!visitor.cookies.has(SESSION_COOKIE), 'a session before the second factor')
      const reused = await visitor.post('/auth/login/second-factor', { pendingToken, code })
      checkProblem(check, reused, 401, 'totp.invalid_code')
      clock.nextStep()
      const done = await visitor.post('/auth/login/second-factor', {
        pendingToken,
        code: codeFor(secret, clock.now()),
      })
      check(done.status === 200, `second factor answered ${done.status}: ${done.text}`)
      check((await visitor.get('/me')).status === 200, 'the session does not work')
    },
  ),
  conformanceCase(
    'adapter.totp-recovery-codes',
    'a recovery code signs in once; new codes need a totp-recovery-codes step-up and revoke the old set',
    async (fixture, check) => {
      const { url, clock } = await started(fixture)
      const client = await signedInBrowser(url)
      const { recoveryCodes: old } = await enabled(client, clock)
      const [first = '', second = ''] = old
      const one = await pendingSignIn(url)
      const used = await one.client.post('/auth/login/second-factor', {
        pendingToken: one.pendingToken,
        recoveryCode: first,
      })
      check(used.status === 200, `a recovery code answered ${used.status}`)
      const two = await pendingSignIn(url)
      const again = await two.client.post('/auth/login/second-factor', {
        pendingToken: two.pendingToken,
        recoveryCode: first,
      })
      checkProblem(check, again, 401, 'totp.invalid_recovery_code')
      check((await statusOf(client)).recoveryCodes === 9, 'the used code still counts')

      checkProblem(check, await client.post('/auth/totp/recovery-codes'), 401, 'step-up.required')
      const token = await passwordStepUp(client, 'totp-recovery-codes')
      const renewed = await client.post('/auth/totp/recovery-codes', undefined, { [STEP_UP_HEADER]: token })
      check(renewed.status === 200, `regenerate answered ${renewed.status}`)
      const fresh = codesOf(renewed)
      check(fresh.length === 10 && !fresh.some((item) => old.includes(item)), 'a new set of ten')
      const stale = await two.client.post('/auth/login/second-factor', {
        pendingToken: two.pendingToken,
        recoveryCode: second,
      })
      checkProblem(check, stale, 401, 'totp.invalid_recovery_code')
      const current = await two.client.post('/auth/login/second-factor', {
        pendingToken: two.pendingToken,
        recoveryCode: fresh[0],
      })
      check(current.status === 200, `a new recovery code answered ${current.status}`)
    },
  ),
  conformanceCase(
    'adapter.totp-disable',
    'turning TOTP off needs a totp-disable step-up (header or cookie); password sign-ins then need no code',
    async (fixture, check) => {
      const { url, clock } = await started(fixture)
      const client = await signedInBrowser(url)
      await enabled(client, clock)
      checkProblem(check, await client.post('/auth/totp/disable'), 401, 'step-up.required')
      const misused = await passwordStepUp(client, 'totp-enroll')
      const wrong = await client.post('/auth/totp/disable', undefined, { [STEP_UP_HEADER]: misused })
      checkProblem(check, wrong, 401, 'step-up.required')
      check((await statusOf(client)).enabled === true, 'TOTP went off without a step-up')
      // A browser step-up: the credential arrives as the purpose's step-up cookie (303), not in JSON.
      const cookieStepUp = await client.post(
        '/auth/step-up/totp-disable',
        { password: PASSWORD },
        { accept: 'text/html' },
      )
      check(cookieStepUp.status === 303, `a browser step-up answered ${cookieStepUp.status}`)
      const off = await client.post('/auth/totp/disable')
      check(off.status === 204, `disable answered ${off.status}: ${off.text}`)
      check((await statusOf(client)).enabled === false, 'TOTP is still on')
      const plain = await browser(url).post('/auth/login', CREDENTIALS)
      check(plain.status === 200, `a password sign-in answered ${plain.status}`)
    },
  ),
  conformanceCase(
    'adapter.factor-openapi',
    'the OpenAPI document lists every passkey and TOTP route with its method and problem answers, no examples',
    async (fixture, check) => {
      const { url } = await started(fixture)
      const answer = await browser(url).get('/openapi.json')
      check(answer.status === 200, `the document answered ${answer.status}`)
      const paths =
        (answer.json() as { paths?: Record<string, Record<string, { responses?: object }>> }).paths ?? {}
      const expected: [string, string][] = [
        ['get', '/auth/passkeys'],
        ['post', '/auth/passkeys/register/options'],
        ['post', '/auth/passkeys/register'],
        ['post', '/auth/passkeys/sign-in/options'],
        ['post', '/auth/passkeys/sign-in'],
        ['post', '/auth/passkeys/token'],
        ['post', '/auth/passkeys/{credentialId}/rename'],
        ['post', '/auth/passkeys/{credentialId}/remove'],
        ['post', '/auth/step-up/{purpose}/passkey/options'],
        ['post', '/auth/step-up/{purpose}/passkey'],
        ['get', '/auth/totp'],
        ['post', '/auth/totp/enroll'],
        ['post', '/auth/totp/confirm'],
        ['post', '/auth/totp/recovery-codes'],
        ['post', '/auth/totp/disable'],
      ]
      for (const [method, path] of expected) {
        const operation = paths[path]?.[method]
        check(operation !== undefined, `${method.toUpperCase()} ${path} is not documented`)
        const codes = Object.keys(operation?.responses ?? {})
        check(
          codes.some((code) => code.startsWith('4')),
          `${method.toUpperCase()} ${path} has no problem answer`,
        )
        check(
          !/"examples?"/.test(JSON.stringify(operation ?? {})),
          `${method.toUpperCase()} ${path} has an example`,
        )
      }
    },
  ),
]
