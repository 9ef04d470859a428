import { randomBytes } from 'node:crypto'
import type { SecurityEvent } from '@portcullis/core/local-accounts'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { type Answer, call } from './http-client.js'
import type { OAuthFixture } from './oauth-cases.js'
import { oauthWorld, SESSION_COOKIE } from './oauth-world.js'

type Case = ConformanceCase<OAuthFixture>

const BINDING_COOKIE = '__Host-portcullis-oauth'
const JSON_CLIENT = { accept: 'application/json' }

const pair = (answer: Answer, prefix: string) =>
  answer.setCookies.find((line) => line.startsWith(prefix) && !/max-age=0/i.test(line))?.split(';')[0] ?? ''

export const oauthNoticeCases: readonly Case[] = [
  conformanceCase(
    'adapter.oauth-unlink-notified',
    "an unlink writes its one notification in the account store's transaction and its oauth.unlinked event says notified (the notifier's sink enqueues none again); an unlink that finds nothing writes none",
    async (fixture, check) => {
      const notifications = fixture.provider.notifications
      if (notifications === undefined) return
      const events: SecurityEvent[] = []
      const app = await fixture.start(oauthWorld(fixture.provider, (event) => events.push(event)))
      const get = (target: string, cookie = '') =>
        call(app.url, target, { headers: { ...JSON_CLIENT, ...(cookie === '' ? {} : { cookie }) } })
      // A first sign-in provisions the account; it gets a password and a verified address beside it.
      const begun = await get('/auth/oauth/idp/login?return_to=/settings')
      const subject = `notified-${randomBytes(6).toString('hex')}`
      const callback = await fixture.provider.authorize(
        (begun.json() as { redirectUrl?: string }).redirectUrl ?? '',
        subject,
      )
      const signedIn = await get(callback, pair(begun, BINDING_COOKIE))
      const outcome = signedIn.json() as {
        accountId?: string
        providerAccountId?: string
        signIn?: { sessionHandle?: string }
      }
      const { accountId, providerAccountId } = outcome
      const handle = outcome.signIn?.sessionHandle
      check(
        signedIn.status === 200 &&
          accountId !== undefined &&
          providerAccountId !== undefined &&
          handle !== undefined,
        `sign-in answered ${signedIn.status}: ${signedIn.text}`,
      )
      if (accountId === undefined || providerAccountId === undefined || handle === undefined) return
      await notifications.prepare(accountId)
      const session = pair(signedIn, SESSION_COOKIE)
      const unlink = async () => {
        const credential = await fixture.provider.stepUp.issue({
          accountId,
          purpose: 'oauth-unlink',
          securityEpoch: 0,
          sessionBinding: handle,
        })
        return call(app.url, `/auth/oauth/idp/links/${providerAccountId}/unlink`, {
          method: 'POST',
          headers: { ...JSON_CLIENT, cookie: session, 'portcullis-step-up': credential.reveal() },
        })
      }
      const first = await unlink()
      check(first.status === 200, `unlink answered ${first.status}: ${first.text}`)
      const unlinked = events.filter((event) => event.type === 'oauth.unlinked')
      check(unlinked.length === 1, `${unlinked.length} oauth.unlinked events`)
      check(
        unlinked.every((event) => (event as { notified?: boolean }).notified === true),
        'the oauth.unlinked event does not say notified',
      )
      const written = await notifications.changes(accountId)
      check(
        JSON.stringify(written) === JSON.stringify(['identity-unlinked']),
        `the outbox holds ${JSON.stringify(written)} for the account`,
      )
      const again = await unlink()
      check(again.status === 404, `unlinking again answered ${again.status}`)
      check(
        (await notifications.changes(accountId)).length === 1,
        'an unlink that found nothing wrote a notification',
      )
    },
  ),
]
