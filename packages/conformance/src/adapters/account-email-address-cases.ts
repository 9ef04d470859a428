import type { MailMessage } from '@portcullis/core/mail'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { emailChangeWorld } from './account-email-change-world.js'
import { PASSWORD, SESSION_COOKIE } from './account-world.js'
import { checkNoStoreNoReferrer } from './answer-checks.js'
import { type Browser, browser, passwordStepUp, signedInBrowser } from './factor-client.js'
import { checkProblem } from './policy-cases.js'
import type { AdapterFixture } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

const STEP_UP_HEADER = 'portcullis-step-up'

/** Alice signed in (session), with the verified primary address `alice@example.com`. */
async function aliceWorld(fixture: AdapterFixture) {
  const world = await emailChangeWorld()
  const app = await fixture.start(world.scenario)
  const alice = await signedInBrowser(app.url, 'alice')
  const { id } = (await alice.get('/me')).json() as { id: string }
  await world.verifiedAddress(id, 'alice@example.com')
  /** A request with a fresh `email-change` step-up credential (each one a second later). */
  const steppedUp = async (path: string, email: string, client: Browser = alice) => {
    world.clock.advance(1000)
    const token = await passwordStepUp(client, 'email-change')
    return client.post(path, { email }, { [STEP_UP_HEADER]: token })
  }
  /** Adds `email` and verifies it with the code it was mailed. */
  const addVerified = async (email: string) => {
    const added = await steppedUp('/auth/email/addresses', email)
    if (added.status !== 202) throw new Error(`adding answered ${added.status}: ${added.text}`)
    const sent = await world.lastOf('verification')
    const verified = await alice.post('/auth/email/verify', { flow: sent?.flow, code: sent?.code })
    if (verified.status !== 200) throw new Error(`verify answered ${verified.status}: ${verified.text}`)
  }
  const notices = async (type: string) =>
    (await world.messages())
      .filter(
        (message): message is Extract<MailMessage, { kind: 'security-notification' }> =>
          message.kind === 'security-notification' && message.change.type === type,
      )
      .map((message) => message.to.address)
      .sort()
  return { ...world, url: app.url, alice, aliceId: id, steppedUp, addVerified, notices }
}

export const accountEmailAddressCases: readonly Case[] = [
  conformanceCase(
    'adapter.address-add-verify',
    'adding an address needs an email-change step-up, mails it a code and tells the primary; the code verifies it once',
    async (fixture, check) => {
      const w = await aliceWorld(fixture)
      const bare = await w.alice.post('/auth/email/addresses', { email: 'second@example.com' })
      checkProblem(check, bare, 401, 'step-up.required')
      const anonymous = await browser(w.url).post('/auth/email/addresses', { email: 'second@example.com' })
      check(anonymous.status === 401, `an anonymous add answered ${anonymous.status}`)
      check((await w.messages()).length === 0, 'mail was written for a refused add')
      check((await w.addresses(w.aliceId)).length === 1, 'a refused add added an address')

      const added = await w.steppedUp('/auth/email/addresses', 'Second@Example.COM')
      check(added.status === 202, `adding answered ${added.status}: ${added.text}`)
      checkNoStoreNoReferrer(check, added)
      const body = added.json() as { address?: unknown; verified?: unknown; flow?: unknown }
      check(body.address === 'Second@example.com' && body.verified === false, `added ${added.text}`)
      const listed = await w.alice.get('/auth/email/addresses')
      check(listed.status === 200, `listing answered ${listed.status}`)
      const rows = (
        listed.json() as { addresses: { address: string; verified: boolean; primary: boolean }[] }
      ).addresses
      check(
        rows.map((row) => `${row.address} ${row.primary} ${row.verified}`).join(', ') ===
          'alice@example.com true true, Second@example.com false false',
        `listed ${listed.text}`,
      )
      const first = await w.lastOf('verification')
      check(first?.message.to.address === 'Second@example.com', 'the new address got no code')
      check(
        (await w.notices('address-added')).join(',') === 'alice@example.com',
        'the primary was not told of the added address',
      )
      const again = await w.steppedUp('/auth/email/addresses', 'Second@example.com')
      checkProblem(check, again, 409, 'account_email.address_exists')

      // A resend replaces the code: the first one no longer verifies.
      w.clock.advance(1000)
      const resent = await w.alice.post('/auth/email/addresses/resend', { email: 'Second@example.com' })
      check(resent.status === 202, `resend answered ${resent.status}: ${resent.text}`)
      const second = await w.lastOf('verification')
      check(second !== undefined && second.code !== '' && second.flow !== first?.flow, 'no new code')
      const stale = await w.alice.post('/auth/email/verify', { flow: first?.flow, code: first?.code })
      checkProblem(check, stale, 400, 'account_email.invalid_code')
      const verified = await w.alice.post('/auth/email/verify', { flow: second?.flow, code: second?.code })
      check(verified.status === 200, `verify answered ${verified.status}: ${verified.text}`)
      const replay = await w.alice.post('/auth/email/verify', { flow: second?.flow, code: second?.code })
      checkProblem(check, replay, 400, 'account_email.invalid_code')
      check(
        (await w.addresses(w.aliceId)).join(', ') ===
          'alice@example.com primary verified, Second@example.com verified',
        `addresses: ${(await w.addresses(w.aliceId)).join(', ')}`,
      )
      const done = await w.alice.post('/auth/email/addresses/resend', { email: 'Second@example.com' })
      checkProblem(check, done, 409, 'account_email.address_verified')
      const unknown = await w.alice.post('/auth/email/addresses/resend', { email: 'other@example.com' })
      checkProblem(check, unknown, 400, 'account_email.address_not_found')
      const signIn = await browser(w.url).post('/auth/login', {
        username: 'Second@example.com',
        password: PASSWORD,
      })
      check(signIn.status === 200, `the verified secondary address does not sign in: ${signIn.status}`)
    },
  ),
  conformanceCase(
    'adapter.address-primary-remove',
    'making an address primary and removing one need a step-up, move the epoch, renew the caller and notify',
    async (fixture, check) => {
      const w = await aliceWorld(fixture)
      await w.addVerified('second@example.com')
      const bob = await signedInBrowser(w.url, 'bob')
      const foreign = await w.steppedUp('/auth/email/addresses/remove', 'second@example.com', bob)
      checkProblem(check, foreign, 400, 'account_email.address_not_found')
      const bare = await w.alice.post('/auth/email/addresses/primary', { email: 'second@example.com' })
      checkProblem(check, bare, 401, 'step-up.required')
      const primaryFirst = await w.steppedUp('/auth/email/addresses/remove', 'alice@example.com')
      checkProblem(check, primaryFirst, 409, 'account_email.primary_address')

      const before = w.alice.cookieHeader()
      const made = await w.steppedUp('/auth/email/addresses/primary', 'second@example.com')
      check(made.status === 200, `primary answered ${made.status}: ${made.text}`)
      checkNoStoreNoReferrer(check, made)
      check(
        made.setCookies.some((line) => line.startsWith(`${SESSION_COOKIE}=`)),
        'no fresh session cookie after the primary changed',
      )
      check((await w.alice.get('/me', { cookie: before })).status === 401, 'the old session survived')
      check((await w.alice.get('/me')).status === 200, 'the renewed session does not work')
      check(
        (await w.addresses(w.aliceId)).join(', ') ===
          'second@example.com primary verified, alice@example.com verified',
        `addresses: ${(await w.addresses(w.aliceId)).join(', ')}`,
      )
      check(
        (await w.notices('address-changed')).join(',') === 'alice@example.com,second@example.com',
        `address-changed went to ${(await w.notices('address-changed')).join(',')}`,
      )

      // A reset code mailed to the address before its removal dies with it.
      w.clock.advance(1000)
      const asked = await browser(w.url).post('/auth/password/forgot', { email: 'alice@example.com' })
      check(asked.status === 202, `forgot answered ${asked.status}`)
      const reset = await w.lastOf('password-reset')
      check(reset?.message.to.address === 'alice@example.com', 'no reset code for alice@example.com')
      const kept = w.alice.cookieHeader()
      const removed = await w.steppedUp('/auth/email/addresses/remove', 'alice@example.com')
      check(removed.status === 200, `remove answered ${removed.status}: ${removed.text}`)
      checkNoStoreNoReferrer(check, removed)
      check((await w.alice.get('/me', { cookie: kept })).status === 401, 'a session survived the removal')
      check((await w.alice.get('/me')).status === 200, 'the caller was signed out by its own removal')
      check(
        (await w.addresses(w.aliceId)).join(', ') === 'second@example.com primary verified',
        `addresses: ${(await w.addresses(w.aliceId)).join(', ')}`,
      )
      check(
        (await w.notices('address-removed')).join(',') === 'alice@example.com,second@example.com',
        `address-removed went to ${(await w.notices('address-removed')).join(',')}`,
      )
      const late = await browser(w.url).post('/auth/password/reset', {
        flow: reset?.flow,
        code: reset?.code,
        password: 'a brand new and long passphrase',
      })
      checkProblem(check, late, 400, 'account_email.invalid_code')
      const gone = await browser(w.url).post('/auth/login', {
        username: 'alice@example.com',
        password: PASSWORD,
      })
      check(gone.status === 401, `the removed address still signs in: ${gone.status}`)
    },
  ),
  conformanceCase(
    'adapter.address-opt-out',
    'an account that turned address-added and address-removed off is not told; an unverified removal keeps the epoch',
    async (fixture, check) => {
      const w = await aliceWorld(fixture)
      const off = await w.alice.post('/auth/notifications', { optOuts: ['address-added', 'address-removed'] })
      check(off.status === 200, `settings answered ${off.status}`)
      const added = await w.steppedUp('/auth/email/addresses', 'second@example.com')
      check(added.status === 202, `adding answered ${added.status}`)
      const kept = w.alice.cookieHeader()
      const removed = await w.steppedUp('/auth/email/addresses/remove', 'second@example.com')
      check(removed.status === 200, `remove answered ${removed.status}: ${removed.text}`)
      check((await w.alice.get('/me', { cookie: kept })).status === 200, 'an unverified removal signed out')
      const sent = await w.lastOf('verification')
      const verify = await w.alice.post('/auth/email/verify', { flow: sent?.flow, code: sent?.code })
      checkProblem(check, verify, 400, 'account_email.invalid_code')
      const notes = (await w.messages()).filter((message) => message.kind === 'security-notification')
      check(notes.length === 0, `${notes.length} notification(s) of kinds turned off`)
      check(
        (await w.addresses(w.aliceId)).join(', ') === 'alice@example.com primary verified',
        `addresses: ${(await w.addresses(w.aliceId)).join(', ')}`,
      )
    },
  ),
]
