import type { SecurityEvent } from '@portcullis/core/local-accounts'
import { type Check, type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { SESSION_COOKIE } from './account-world.js'
import { BACKCHANNEL_REFUSALS, checkRefused } from './backchannel-refusals.js'
import { backchannelWorld } from './backchannel-world.js'
import { type Answer, call } from './http-client.js'
import type { OAuthFixture } from './oauth-cases.js'

type Case = ConformanceCase<OAuthFixture>

const PROVIDER = 'idp'
const LOGOUT_PATH = `/auth/oauth/${PROVIDER}/backchannel-logout`
const BINDING_COOKIE = '__Host-portcullis-oauth'
const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }
const FORM = 'application/x-www-form-urlencoded'
const LOGOUT_EVENT = { 'http://schemas.openid.net/event/backchannel-logout': {} }

const pairOf = (answer: Answer, prefix: string) =>
  (answer.setCookies.find((line) => line.startsWith(prefix) && !/max-age=0/i.test(line)) ?? '').split(
    ';',
  )[0] as string

/**
 * Two instances of the back-channel logout world, the provider's logout requests aimed at the first:
 * `signIn(subject)` signs in at the first instance through the provider (its session cookie and `sid`),
 * `status(session, url)` is what `GET /me` answers that session there.
 */
async function twoInstances(fixture: OAuthFixture, check: Check) {
  const world = backchannelWorld(fixture.provider)
  const first = await fixture.start(world.instance())
  const second = await fixture.start(world.instance())
  fixture.provider.backchannel.target(first.url)
  const get = (url: string, target: string, cookie = '') =>
    call(url, target, { headers: { ...BROWSER, ...(cookie === '' ? {} : { cookie }) } })
  const signIn = async (subject: string) => {
    const begun = await get(first.url, `/auth/oauth/${PROVIDER}/login?return_to=/settings`)
    const callback = await fixture.provider.authorize(begun.headers.location ?? '', subject)
    const done = await get(first.url, callback, pairOf(begun, BINDING_COOKIE))
    check(done.status === 303, `the OAuth sign-in of ${subject} answered ${done.status}: ${done.text}`)
    const session = pairOf(done, SESSION_COOKIE)
    check(session !== '', `the OAuth sign-in of ${subject} established no session`)
    const sid = world.sids.at(-1)
    check(sid !== undefined, 'the provider named no session (sid)')
    return { session, sid: sid as string }
  }
  const status = async (session: string, url: string) => (await get(url, '/me', session)).status
  /** A token the provider signs, naming `subject`'s session `sid`, but an ID token (a nonce). */
  const idToken = (subject: string, sid: string, jti: string) =>
    fixture.provider.backchannel.signLogoutToken({
      iss: fixture.provider.backchannel.issuer,
      aud: fixture.provider.backchannel.clientId,
      iat: Math.floor(Date.now() / 1000),
      jti,
      sub: subject,
      sid,
      events: LOGOUT_EVENT,
      nonce: 'an ID token, not a logout token',
    })
  const post = (target: string, type: string, body: string) =>
    call(first.url, target, { method: 'POST', headers: { 'content-type': type }, body })
  return { world, first: first.url, second: second.url, signIn, status, idToken, post }
}

const ofType = (events: readonly SecurityEvent[], type: string) =>
  events.filter((event) => event.type === type) as readonly Record<string, unknown>[]

export const backchannelCases: readonly Case[] = [
  conformanceCase(
    'adapter.oauth-backchannel-logout',
    "the provider's back-channel logout of a session ends its local session on every instance, and no other",
    async (fixture, check) => {
      const { world, first, second, signIn, status } = await twoInstances(fixture, check)
      const signedIn = await signIn('bcl-erin')
      const unrelated = await signIn('bcl-erin')
      check((await status(signedIn.session, first)) === 200, 'the session is refused before the logout')
      check((await status(signedIn.session, second)) === 200, 'the second instance refuses the session')
      await fixture.provider.backchannel.logOut('bcl-erin', signedIn.sid)
      check((await status(signedIn.session, first)) === 401, 'the session still opens the first instance')
      check((await status(signedIn.session, second)) === 401, 'the session still opens the second instance')
      check((await status(unrelated.session, second)) === 200, 'another provider session of the user ended')
      const ended = ofType(world.events, 'oauth.backchannel_logout')
      check(
        ended.length === 1 && ended[0]?.provider === PROVIDER && ended[0]?.sessions === 1,
        `logout events: ${JSON.stringify(ended)}`,
      )
    },
  ),
  conformanceCase(
    'adapter.oauth-backchannel-forged',
    'a forged or malformed back-channel logout is 400 problem+json, no-store, never echoes the token, ends nothing',
    async (fixture, check) => {
      const { world, second, signIn, status, idToken, post } = await twoInstances(fixture, check)
      const signedIn = await signIn('bcl-frank')
      const forged = await idToken('bcl-frank', signedIn.sid, 'forged-1')
      const form = new URLSearchParams({ logout_token: forged }).toString()
      const refused = await post(LOGOUT_PATH, FORM, form)
      check(refused.status === 400, `a forged logout token answered ${refused.status}`)
      check(
        (refused.headers['content-type'] ?? '').startsWith('application/problem+json'),
        `not problem+json: ${refused.headers['content-type']}`,
      )
      check(
        refused.headers['cache-control'] === 'no-store',
        `Cache-Control ${refused.headers['cache-control']}`,
      )
      check(
        (refused.json() as { code?: unknown }).code === 'oidc.logout_token.rejected',
        `problem: ${refused.text}`,
      )
      check(!refused.text.includes(forged), 'the answer carries the token')
      const json = await post(LOGOUT_PATH, 'application/json', JSON.stringify({ logout_token: forged }))
      check(json.status === 400, `a JSON body answered ${json.status}`)
      const unknown = await post('/auth/oauth/nobody/backchannel-logout', FORM, form)
      check(unknown.status === 404, `an unknown provider answered ${unknown.status}`)
      const tooLarge = await post(LOGOUT_PATH, FORM, `logout_token=${'a'.repeat(32 * 1024)}`)
      check(tooLarge.status === 413, `a body over the limit answered ${tooLarge.status}`)
      check((await status(signedIn.session, second)) === 200, 'a refused logout ended the session')
      const reasons = ofType(world.events, 'oauth.backchannel_logout_refused').map((event) =>
        event.provider === PROVIDER ? event.reason : `provider ${String(event.provider)}`,
      )
      check(
        reasons.join() === 'nonce,content-type,body-too-large',
        `refusal reasons: ${reasons.join()} (expected nonce, content-type, body-too-large)`,
      )
      check(
        ofType(world.events, 'oauth.backchannel_logout').length === 0,
        'a refused logout was reported as done',
      )
    },
  ),
  conformanceCase(
    'adapter.oauth-backchannel-refusals',
    'every malformed back-channel logout request is refused alike (400, 413 for size) and reported once; no other method is routed',
    async (fixture, check) => {
      const { world, first, second, signIn, status, idToken } = await twoInstances(fixture, check)
      const signedIn = await signIn('bcl-grace')
      // Signed by the provider and naming the session, but an ID token (a nonce): never a logout token.
      const token = await idToken('bcl-grace', signedIn.sid, 'refusals-1')
      for (const refusal of BACKCHANNEL_REFUSALS) {
        await checkRefused(check, `${first}${LOGOUT_PATH}`, refusal, token, world.events, PROVIDER)
      }
      const before = world.events.length
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const answer = await call(first, LOGOUT_PATH, { method })
        check(answer.status === 404, `${method} answered ${answer.status}`)
      }
      check(world.events.length === before, 'another method was reported')
      check((await status(signedIn.session, first)) === 200, 'a refusal ended the session (first instance)')
      check((await status(signedIn.session, second)) === 200, 'a refusal ended the session (second instance)')
    },
  ),
]
