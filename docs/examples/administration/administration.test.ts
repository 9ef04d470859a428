// Account administration as docs/administration.md shows it: the service over Postgres accounts and the
// Postgres security log (DATABASE_URL names a disposable database), the routes behind the administrator
// role on an Express server on loopback, and an administrator disabling an account over HTTP.
import type { AddressInfo } from 'node:net'
import { AccountService } from '@portcullis/core/accounts'
import { AccountAdministration } from '@portcullis/core/administration'
import { LocalAccounts, MemoryRateLimitStore, PASSWORD_ACCEPTED } from '@portcullis/core/local-accounts'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import {
  administrationRoutes,
  createAccountRoutes,
  createSecurity,
  localAccountRoutes,
} from '@portcullis/express'
import { PostgresAccountStore, PostgresSecurityLog, PostgresSessionStore } from '@portcullis/postgres'
import express from 'express'
import { afterAll, expect, it } from 'vitest'
import { plainHasher } from '../../test/support/example-hasher.js'
import { exampleDatabase } from '../../test/support/example-postgres.js'
import { signInOverHttp } from '../../test/support/example-sign-in.js'

const client = await exampleDatabase()

// Tests only: a hasher without cost (an application uses @portcullis/argon2).
const hasher = plainHasher
const ORIGIN = 'http://127.0.0.1'
const administrators = new Set<string>()

// #region service
const accounts = new PostgresAccountStore({ client })
const local = new LocalAccounts({
  profile: 'session',
  accounts,
  sessions: new PostgresSessionStore({ client }),
  rateLimits: new MemoryRateLimitStore(),
  hasher,
  passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
  publicOrigin: ORIGIN,
  registration: 'open',
})
const stepUp = new StepUpService({ store: new MemoryStepUpStore() })
const administration = new AccountAdministration({
  accounts, // also the directory that searches them
  local,
  stepUp, // every change consumes a fresh `administration` step-up of the administrator
  log: new PostgresSecurityLog({ client }), // every change is audited here
})
// #endregion service

// #region routes
const security = createSecurity({
  mechanisms: local.mechanisms,
  // Who is an administrator is the application's data: here, a role in the authorization snapshot.
  authorizationResolver: ({ principal }) => (administrators.has(principal.id) ? { roles: ['admin'] } : {}),
})
const app = express()
app.use(security.middleware)
app.use(localAccountRoutes({ local, security }))
// `POST /auth/step-up/administration` with the password: the one-use credential.
app.use(createAccountRoutes({ service: new AccountService({ accounts, local, stepUp }), local, security }))
// `/auth/admin/accounts/...`, for holders of the `admin` role only (403 otherwise).
app.use(administrationRoutes({ administration, local, security, administrators: { role: 'admin' } }))
// #endregion routes

const server = app.listen(0, '127.0.0.1')
await new Promise<void>((resolve) => server.once('listening', () => resolve()))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const signIn = (username: string) => signInOverHttp(base, local, username)

it('an administrator finds an account and disables it; its session is refused at once', async () => {
  const suffix = Date.now().toString(36)
  const admin = await signIn(`root-${suffix}`)
  const user = await signIn(`alice-${suffix}`)
  administrators.add(admin.accountId)
  const headers = { cookie: admin.cookie, origin: ORIGIN, 'sec-fetch-site': 'same-origin' }
  const post = (path: string, body: unknown, extra: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { ...headers, ...extra, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    })

  // #region disable
  // 1. Find the account.
  const search = await fetch(`${base}/auth/admin/accounts?by=prefix&q=alice-${suffix}`, { headers })
  const { hits } = (await search.json()) as { hits: { accountId: string; username: string }[] }

  // 2. Step up: the administrator's password again, for one change.
  const stepped = await post('/auth/step-up/administration', { password: 'correct horse battery' })
  const { stepUpToken } = (await stepped.json()) as { stepUpToken: string }

  // 3. Disable, with a reason the audit entry keeps.
  const disabled = await post(
    `/auth/admin/accounts/${encodeURIComponent(hits[0]?.accountId ?? '')}/disable`,
    { reason: 'credential stuffing from ticket 812' },
    { 'portcullis-step-up': stepUpToken },
  )
  // 200 { account: { status: 'disabled', ... }, auditId }
  // #endregion disable

  expect(hits.map((hit) => hit.username)).toEqual([`alice-${suffix}`])
  expect(disabled.status).toBe(200)
  expect(((await disabled.json()) as { account: { status: string } }).account.status).toBe('disabled')
  const refused = await fetch(`${base}/auth/admin/accounts/${user.accountId}`, {
    headers: { cookie: user.cookie },
  })
  expect(refused.status).toBe(401)
  // The same credential cannot be used twice.
  const replayed = await post(
    `/auth/admin/accounts/${user.accountId}/enable`,
    { reason: 'again' },
    { 'portcullis-step-up': stepUpToken },
  )
  expect(replayed.status).toBe(401)

  // #region audit
  const view = await fetch(`${base}/auth/admin/accounts/${encodeURIComponent(user.accountId)}`, { headers })
  const { recentEvents } = (await view.json()) as {
    recentEvents: { type: string; actorId: string; reason: string }[]
  }
  // [{ type: 'administration.account_disabled', actorId: <the administrator>, reason: 'credential ...' }, ...]
  // #endregion audit
  expect(recentEvents[0]).toMatchObject({
    type: 'administration.account_disabled',
    actorId: admin.accountId,
    reason: 'credential stuffing from ticket 812',
  })
})

it('a caller without the role gets 403', async () => {
  const user = await signIn(`mallory-${Date.now().toString(36)}`)
  const answer = await fetch(`${base}/auth/admin/accounts?by=prefix&q=a`, {
    headers: { cookie: user.cookie },
  })
  expect(answer.status).toBe(403)
  expect(answer.headers.get('content-type')).toContain('application/problem+json')
})
