// Impersonation as docs/impersonation.md shows it: local accounts whose session mechanism is wrapped by
// `Impersonations`, the account routes (the administrator's password step-up) and the impersonation
// routes on Express, the events in the security log on Postgres (DATABASE_URL names a disposable
// database), and an administrator starting, using and ending an impersonation over real HTTP.
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { AccountService, MemoryAccountStore } from '@portcullis/core/accounts'
import { ImpersonationEvents, ImpersonationRefusedActs, Impersonations } from '@portcullis/core/impersonation'
import {
  LocalAccounts,
  MemoryRateLimitStore,
  MemorySessionStore,
  PASSWORD_ACCEPTED,
} from '@portcullis/core/local-accounts'
import { required } from '@portcullis/core/policy'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { SecurityLogWriter } from '@portcullis/core/security-log'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import {
  createAccountRoutes,
  createSecurity,
  impersonationRoutes,
  localAccountRoutes,
} from '@portcullis/express'
import { PostgresSecurityLog } from '@portcullis/postgres'
import express from 'express'
import { afterAll, expect, it } from 'vitest'
import { plainHasher } from '../../test/support/example-hasher.js'
import { exampleDatabase } from '../../test/support/example-postgres.js'

const client = await exampleDatabase()

// Tests only: a hasher without cost (an application uses @portcullis/argon2).
const hasher = plainHasher
const suffix = Date.now().toString(36)
const administrators = new Set<string>()
const accounts = new MemoryAccountStore()
// Tests only: a fresh key (an application loads it with loadOAuthTransactionProtectorKey).
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
})

// #region wiring
const writer = new SecurityLogWriter({ log: new PostgresSecurityLog({ client }) })
// In front of the log: marks every event of an impersonation session with its administrator, and ends
// an administrator's impersonations when their own session ends.
const events = new ImpersonationEvents(writer.sink)
const local = new LocalAccounts({
  profile: 'session',
  accounts,
  sessions: new MemorySessionStore(),
  rateLimits: new MemoryRateLimitStore(),
  hasher,
  passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
  publicOrigin: 'https://app.example',
  registration: 'open',
  events: events.sink,
})
const stepUp = new StepUpService({ store: new MemoryStepUpStore() })
// The grants of every request, the impersonation's included, come from the application's resolver.
const authorizationResolver = ({ principal }: { principal: { id: string } }) => ({
  capabilities: administrators.has(principal.id) ? ['accounts.impersonate'] : [],
})
const impersonations = new Impersonations({
  local,
  stepUp,
  protector,
  authorizationResolver,
  events,
  ttlSeconds: 1800, // at most 3600
})
const security = createSecurity({
  // the session mechanism, wrapped: an impersonation session carries `impersonator`
  mechanisms: impersonations.mechanisms(local.mechanisms),
  authorizationResolver,
})
const app = express()
app.use(security.middleware)
app.use(localAccountRoutes({ local, security }))
app.use(createAccountRoutes({ service: new AccountService({ accounts, local, stepUp }), local, security }))
app.use(impersonationRoutes({ impersonations, local, security }))
app.use(keyRoutes())
app.use(security.errorHandler)
// #endregion wiring

// #region outlasting
/** The application's own route that makes something the impersonation would leave behind. */
function keyRoutes() {
  const router = security.router()
  router.post(
    '/api/keys',
    { auth: required(local.sessionMechanismName ?? 'session') },
    (request, response) => {
      // First: an impersonation is refused (403 impersonation.refused, logged with the administrator).
      impersonations.refuse({
        principal: request.security.principal,
        act: ImpersonationRefusedActs.apiKeyIssue,
        request: { peerAddress: request.socket.remoteAddress },
      })
      response.status(201).json({ keyId: 'k_1' }) // ... the application issues the key here
    },
  )
  return router
}
// #endregion outlasting

const server = app.listen(0, '127.0.0.1')
await new Promise((resolve) => server.once('listening', resolve))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await writer.close()
})

const SAME_ORIGIN = { origin: 'https://app.example', 'sec-fetch-site': 'same-origin' }
const PASSWORD = 'correct horse battery staple'

/** A browser: a cookie jar and same-origin JSON requests. */
function browser() {
  const jar = new Map<string, string>()
  return async (path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const answer = await fetch(`${base}${path}`, {
      method: body === undefined && !path.endsWith('/end') ? 'GET' : 'POST',
      headers: {
        ...SAME_ORIGIN,
        accept: 'application/json',
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    for (const line of answer.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const name = pair.slice(0, pair.indexOf('='))
      if (/max-age=0/i.test(line)) jar.delete(name)
      else jar.set(name, pair.slice(name.length + 1))
    }
    return answer
  }
}

async function signedUp(username: string) {
  const send = browser()
  const registered = (await (await send('/auth/register', { username, password: PASSWORD })).json()) as {
    accountId: string
  }
  await send('/auth/login', { username, password: PASSWORD })
  return { send, accountId: registered.accountId }
}

it('starts, marks and ends an impersonation; it obtains no step-up', async () => {
  const admin = await signedUp(`admin-${suffix}`)
  administrators.add(admin.accountId)
  const alice = await signedUp(`alice-${suffix}`)
  const send = admin.send

  // #region start
  // A fresh, one-use step-up of the administrator (here: the password again), then the start with a reason.
  const stepUpAnswer = await send('/auth/step-up/impersonation-start', { password: PASSWORD })
  const { stepUpToken } = (await stepUpAnswer.json()) as { stepUpToken: string }
  const start = await send(
    '/auth/impersonation',
    { accountId: alice.accountId, reason: 'ticket 4711: the invoice page is empty' },
    { 'portcullis-step-up': stepUpToken },
  )
  // 201 { impersonationId, accountId, expiresAt, csrfToken }: the browser now holds the impersonation session
  // #endregion start
  expect(start.status).toBe(201)
  const { impersonationId } = (await start.json()) as { impersonationId: string }

  // #region current
  const current = await (await send('/auth/impersonation')).json()
  // { impersonating: true, accountId: alice, administratorId: admin, impersonationId }
  // #endregion current
  expect(current).toEqual({
    impersonating: true,
    accountId: alice.accountId,
    administratorId: admin.accountId,
    impersonationId,
  })

  // #region refused
  // Whatever it knows, an impersonation gets no step-up: no password, address or factor change, no deletion.
  const refused = await send('/auth/step-up/password-remove', { password: PASSWORD })
  // 403 { code: 'step-up.impersonated' }, and the same for POST /auth/password/change
  // #endregion refused
  expect(refused.status).toBe(403)
  expect(((await refused.json()) as { code: string }).code).toBe('step-up.impersonated')
  const change = await send('/auth/password/change', {
    currentPassword: PASSWORD,
    newPassword: 'x'.repeat(20),
  })
  expect(change.status).toBe(403)
  // An API key would outlast the impersonation: refused, and logged with the administrator.
  const key = await send('/api/keys', {})
  expect(key.status).toBe(403)
  expect(((await key.json()) as { code: string }).code).toBe('impersonation.refused')

  // #region end
  const ended = await send('/auth/impersonation/end')
  // 200 { impersonationId, csrfToken }: the administrator's own session is back in the browser
  // #endregion end
  expect(ended.status).toBe(200)
  expect(((await (await send('/auth/impersonation')).json()) as { accountId: string }).accountId).toBe(
    admin.accountId,
  )

  // #region log
  await writer.flush()
  const page = await new PostgresSecurityLog({ client }).listForAccount({
    accountId: alice.accountId,
    limit: 20,
  })
  // impersonation.started and .ended, and the impersonation session's own events, name the administrator:
  // { type: 'impersonation.started', actorId: admin, details: { impersonationId, reasonText: 'ticket 4711: …' } }
  // #endregion log
  const started = page.entries.find((entry) => entry.type === 'impersonation.started')
  expect(started).toMatchObject({ actorId: admin.accountId, details: { impersonationId } })
  expect(started?.details.reasonText).toBe('ticket 4711: the invoice page is empty')
  const refusedKey = page.entries.find((entry) => entry.type === 'impersonation.refused')
  expect(refusedKey).toMatchObject({
    accountId: alice.accountId,
    actorId: admin.accountId,
    details: { impersonationId, act: 'api_key.issue' },
  })
  const marked = page.entries.filter((entry) => entry.details.impersonationId === impersonationId)
  expect(marked.map((entry) => entry.type)).toEqual(
    expect.arrayContaining([
      'impersonation.started',
      'impersonation.ended',
      'session.created',
      'session.revoked',
    ]),
  )
  for (const entry of marked) expect(entry.actorId).toBe(admin.accountId)
})
