import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { SoftwareAuthenticator } from '../webauthn/software-authenticator.js'
import { accountEmailWorld } from './account-email-world.js'
import { ORIGIN } from './account-world.js'
import { type Browser, browser } from './factor-client.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>
type World = Awaited<ReturnType<typeof accountEmailWorld>>
type Check = (condition: unknown, detail?: string) => void

const PASSWORD = 'a long and unusual passphrase'
const NEW_PASSWORD = 'another long and unusual passphrase'
const ADDRESS = 'keyholder@example.com'
const BINDING = '__Host-portcullis-passkey'

/** An account with a verified address and a software passkey (registered in process). */
async function passkeyAccount(world: World, url: string) {
  const client = browser(url)
  const signUp = await client.post('/auth/email/sign-up', { email: ADDRESS, password: PASSWORD })
  if (signUp.status !== 202) throw new Error(`sign-up answered ${signUp.status}: ${signUp.text}`)
  const { flow, code } = await world.lastTo('verification', ADDRESS)
  const verified = await client.post('/auth/email/verify', { flow, code })
  if (verified.status !== 200) throw new Error(`verify answered ${verified.status}: ${verified.text}`)
  const login = await client.post('/auth/login', { username: ADDRESS, password: PASSWORD })
  if (login.status !== 200) throw new Error(`login answered ${login.status}: ${login.text}`)
  const { accountId } = login.json() as { accountId: string }
  const passkeys = world.passkeys
  if (passkeys === undefined) throw new Error('the world has no passkeys')
  const authenticator = new SoftwareAuthenticator({ rpId: 'app.example', origin: ORIGIN })
  const start = await passkeys.beginRegistration({ accountId, userName: ADDRESS, sessionBinding: 'setup' })
  await passkeys.finishRegistration({
    accountId,
    sessionBinding: 'setup',
    browserBinding: start.revealBrowserBinding(),
    response: authenticator.register(start.options),
  })
  return authenticator
}

/** Asks for a reset and sends the mailed code with the new password: the 202 of the passkey step. */
async function passkeyStep(world: World, visitor: Browser, check: Check) {
  world.clock.advance(1000)
  const asked = await visitor.post('/auth/password/forgot', { email: ADDRESS })
  if (asked.status !== 202) throw new Error(`forgot answered ${asked.status}: ${asked.text}`)
  const { flow, code } = await world.lastTo('password-reset', ADDRESS)
  const answer = await visitor.post('/auth/password/reset', { flow, code, password: NEW_PASSWORD })
  check(answer.status === 202, `the reset of a passkey account answered ${answer.status}: ${answer.text}`)
  const body = answer.json() as {
    passkeyRequired?: boolean
    resetToken?: string
    options?: { challenge: string; allowCredentials?: { id: string }[] }
  }
  check(body.passkeyRequired === true, 'no passkeyRequired in the 202')
  check(visitor.cookies.has(BINDING), 'the 202 set no passkey ceremony cookie')
  check((answer.headers['cache-control'] ?? '').includes('no-store'), 'the 202 is cacheable')
  return { resetToken: body.resetToken ?? '', options: body.options ?? { challenge: '' } }
}

async function signsIn(url: string, password: string): Promise<number> {
  return (await browser(url).post('/auth/login', { username: ADDRESS, password })).status
}

export const accountEmailPasskeyCases: readonly Case[] = [
  conformanceCase(
    'adapter.password-reset-passkey',
    'a reset of a passkey account changes nothing without an assertion of its passkey; a forged, replayed or other-browser assertion is refused and spends the reset; a valid one resets once',
    async (fixture, check) => {
      const world = await accountEmailWorld({ passkeys: true })
      const { url } = await fixture.start(world.scenario)
      const authenticator = await passkeyAccount(world, url)
      const visitor = browser(url)

      const first = await passkeyStep(world, visitor, check)
      check(
        first.options.allowCredentials?.some((each) => each.id === authenticator.credentialId) === true,
        "the assertion options do not list the account's passkey",
      )
      check((await signsIn(url, PASSWORD)) === 200, 'the reset changed the password before the assertion')
      check((await signsIn(url, NEW_PASSWORD)) === 401, 'the new password works before the assertion')
      const bare = await visitor.post('/auth/password/reset/passkey', { resetToken: first.resetToken })
      checkProblem(check, bare, 400, 'account_email.invalid_input')
      // a signature over another challenge: refused, and the pending reset is spent
      const forged = await visitor.post('/auth/password/reset/passkey', {
        resetToken: first.resetToken,
        response: authenticator.assert(first.options, { challenge: 'A'.repeat(43) }),
      })
      check(forged.status === 401 || forged.status === 400, `a forged assertion answered ${forged.status}`)
      check(/^passkey\./.test(String((forged.json() as { code?: string }).code)), `forged: ${forged.text}`)
      const late = await visitor.post('/auth/password/reset/passkey', {
        resetToken: first.resetToken,
        response: authenticator.assert(first.options),
      })
      checkProblem(check, late, 400, 'account_email.reset_pending_invalid')
      check((await signsIn(url, NEW_PASSWORD)) === 401, 'a refused assertion reset the password')

      // another browser (without the ceremony cookie) cannot answer the challenge
      const second = await passkeyStep(world, visitor, check)
      const elsewhere = await browser(url).post('/auth/password/reset/passkey', {
        resetToken: second.resetToken,
        response: authenticator.assert(second.options),
      })
      checkProblem(check, elsewhere, 401, 'passkey.challenge_invalid')

      const third = await passkeyStep(world, visitor, check)
      const valid = authenticator.assert(third.options)
      const done = await visitor.post('/auth/password/reset/passkey', {
        resetToken: third.resetToken,
        response: valid,
      })
      check(done.status === 200, `a valid assertion answered ${done.status}: ${done.text}`)
      check((done.json() as { reset?: boolean }).reset === true, 'no reset: true')
      const replay = await visitor.post('/auth/password/reset/passkey', {
        resetToken: third.resetToken,
        response: valid,
      })
      checkProblem(check, replay, 400, 'account_email.reset_pending_invalid')
      // the spent challenge answers no later reset either
      const fourth = await passkeyStep(world, visitor, check)
      const stale = await visitor.post('/auth/password/reset/passkey', {
        resetToken: fourth.resetToken,
        response: valid,
      })
      checkProblem(check, stale, 401, 'passkey.challenge_invalid')
      check((await signsIn(url, NEW_PASSWORD)) === 200, 'the new password does not sign in')
      check((await signsIn(url, PASSWORD)) === 401, 'the old password still signs in')
      const notice = await world.lastTo('security-notification', ADDRESS)
      check(notice.message !== undefined, 'no password-reset notification')
    },
  ),
]
