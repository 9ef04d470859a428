// Recent activity and sessions as docs/activity.md shows them: local accounts whose events go to the
// security log on Postgres (DATABASE_URL names a disposable database), the activity routes on Express,
// and a person reading their activity and signing a device out over real HTTP.
import type { AddressInfo } from 'node:net'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { LocalAccounts, MemoryRateLimitStore, PASSWORD_ACCEPTED } from '@portcullis/core/local-accounts'
import { SecurityLogWriter } from '@portcullis/core/security-log'
import { activityRoutes, createSecurity, localAccountRoutes } from '@portcullis/express'
import { describeUserAgent } from '@portcullis/http/user-agents'
import { PostgresSecurityLog, PostgresSessionStore } from '@portcullis/postgres'
import express from 'express'
import { afterAll, expect, it } from 'vitest'
import { plainHasher } from '../../test/support/example-hasher.js'
import { exampleDatabase } from '../../test/support/example-postgres.js'

const client = await exampleDatabase()

// Tests only: a hasher without cost (an application uses @portcullis/argon2).
const hasher = plainHasher

// #region wiring
const securityLog = new PostgresSecurityLog({ client })
const writer = new SecurityLogWriter({ log: securityLog, describeUserAgent })
const local = new LocalAccounts({
  profile: 'session',
  accounts: new MemoryAccountStore(),
  // The session records keep the User-Agent and the client address of the sign-in.
  sessions: new PostgresSessionStore({ client }),
  rateLimits: new MemoryRateLimitStore(),
  hasher,
  passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
  publicOrigin: 'https://app.example',
  registration: 'open',
  events: writer.sink, // every security event goes to the log, in background batches
})
const security = createSecurity({ mechanisms: local.mechanisms })
const app = express()
app.use(security.middleware)
app.use(localAccountRoutes({ local, security })) // its CSRF check covers the routes mounted after it
app.use(activityRoutes({ local, securityLog, security }))
app.use(security.errorHandler)
// #endregion wiring

const server = app.listen(0, '127.0.0.1')
await new Promise((resolve) => server.once('listening', resolve))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await writer.close()
})

const SAME_ORIGIN = { origin: 'https://app.example', 'sec-fetch-site': 'same-origin' }
const LAPTOP = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const PHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1'
const credentials = { username: `alice-${Date.now().toString(36)}`, password: 'correct horse battery staple' }

async function signIn(userAgent: string): Promise<string> {
  const answer = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { ...SAME_ORIGIN, 'content-type': 'application/json', 'user-agent': userAgent },
    body: JSON.stringify(credentials),
  })
  expect(answer.status).toBe(200)
  return (answer.headers.get('set-cookie') ?? '').split(';')[0] as string
}

it('lists the devices, signs one out, and shows the sign-ins in the activity', async () => {
  await local.register(credentials)
  const cookie = await signIn(LAPTOP)
  await new Promise((resolve) => setTimeout(resolve, 5)) // two sign-ins, two instants
  const phoneCookie = await signIn(PHONE)

  // #region sessions
  const sessions = await fetch(`${base}/auth/activity/sessions`, { headers: { cookie } })
  const { sessions: devices } = (await sessions.json()) as {
    sessions: { id: string; current: boolean; deviceName: string; lastSeenAt: string }[]
  }
  // [{ id: 'Xq3…', current: true, deviceName: 'Firefox 133 on Linux', lastSeenAt: '…', … },
  //  { id: 'b8Z…', current: false, deviceName: 'Safari 18.1 on iOS 18.1', … }]
  const phone = devices.find((device) => !device.current)
  await fetch(`${base}/auth/activity/sessions/${phone?.id}/sign-out`, {
    method: 'POST',
    headers: { ...SAME_ORIGIN, cookie },
  }) // 200 { signedOut: true, current: false }; another account's id is 404
  // #endregion sessions
  expect(devices.map((device) => device.deviceName)).toEqual([
    'Firefox 133 on Linux',
    'Safari 18.1 on iOS 18.1',
  ])
  const refused = await fetch(`${base}/auth/activity/sessions`, { headers: { cookie: phoneCookie } })
  expect(refused.status).toBe(401)

  await writer.flush()
  // #region activity
  const page = await fetch(`${base}/auth/activity?limit=20`, { headers: { cookie } })
  const { items, nextCursor } = (await page.json()) as {
    items: { kind: string; method: string | null; deviceName: string; address: string | null }[]
    nextCursor: string | null
  }
  // [{ kind: 'signed_out', … },
  //  { kind: 'signed_in', method: 'password', deviceName: 'Safari 18.1 on iOS 18.1', address: '127.0.0.1' },
  //  { kind: 'signed_in', method: 'password', deviceName: 'Firefox 133 on Linux', address: '127.0.0.1' }]
  // More: `/auth/activity?cursor=${nextCursor}` while nextCursor is not null.
  // #endregion activity
  expect(items.map((item) => [item.kind, item.method, item.deviceName])).toEqual([
    ['signed_out', null, 'Unknown device'],
    ['signed_in', 'password', 'Safari 18.1 on iOS 18.1'],
    ['signed_in', 'password', 'Firefox 133 on Linux'],
  ])
  expect(nextCursor).toBeNull()

  // #region sign-out-others
  const others = await fetch(`${base}/auth/activity/sessions/sign-out-others`, {
    method: 'POST',
    headers: { ...SAME_ORIGIN, cookie },
  })
  // 200 { csrfToken, expiresAt } and a fresh session cookie for this device: every other session,
  // refresh token family and access token of the account is refused on every instance.
  const fresh = (others.headers.get('set-cookie') ?? '').split(';')[0] as string
  // #endregion sign-out-others
  expect(others.status).toBe(200)
  expect((await fetch(`${base}/auth/activity/sessions`, { headers: { cookie: fresh } })).status).toBe(200)
  expect((await fetch(`${base}/auth/activity/sessions`, { headers: { cookie } })).status).toBe(401)
})
