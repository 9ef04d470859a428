// Mail never sits on the request path (issue 43): POST /auth/password/forgot (Express, `accountEmailRoutes`
// over Postgres stores, one mail sealed into the Postgres outbox per request) while a running
// `MailOutboxDrain` sends through an `SmtpMailer` to (a) a healthy loopback `smtp-server` vs (b) a stalled
// one: a `node:net` server that accepts connections and never writes a byte (no greeting, so every send
// hangs until the mailer's greeting timeout). Each side has its own database on the same server, so the
// two drains never claim each other's mail; interleaved slices. Budget: the stalled side keeps >= 0.9x.
// After the run: the healthy server received mail, the stalled one was connected to and answered nothing.
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { createServer, type Server, type Socket } from 'node:net'
import { compareHttp, finish, listen } from '@portcullis/bench'
import { AccountEmail } from '@portcullis/core/account-email'
import { CodeKeyRing } from '@portcullis/core/codes'
import { LocalAccounts, PASSWORD_ACCEPTED, type PasswordHasher } from '@portcullis/core/local-accounts'
import { MailOutboxDrain } from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import { accountEmailRoutes, createSecurity, localAccountRoutes } from '@portcullis/express'
import { SmtpMailer } from '@portcullis/mail'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresMailOutbox,
  PostgresNotificationSettings,
  PostgresOneTimeCodeStore,
  PostgresRateLimitStore,
  PostgresSessionStore,
} from '@portcullis/postgres'
import express from 'express'
import { SMTPServer } from 'smtp-server'

const ORIGIN = 'https://bench.example'
const UNLIMITED = { limit: 1_000_000, windowSeconds: 60 }
// The route never hashes a password; a cheap hasher keeps LocalAccounts out of the measurement.
const hasher: PasswordHasher = {
  hash: async (password) => `plain$${Buffer.from(password).toString('base64url')}`,
  verify: async (hash, password) => hash === `plain$${Buffer.from(password).toString('base64url')}`,
  needsRehash: () => false,
}
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('bench', randomBytes(32)),
})

let received = 0
const healthySmtp = new SMTPServer({
  logger: false,
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  onData(stream, _session, callback) {
    stream.on('data', () => {})
    stream.on('end', () => {
      received += 1
      callback()
    })
  },
})
await new Promise<void>((resolve) => healthySmtp.listen(0, '127.0.0.1', resolve))

// Accepts, reads and never answers: the mailer waits for a greeting that never comes.
const stalledSockets = new Set<Socket>()
let stalledConnections = 0
const stalledSmtp: Server = createServer((socket) => {
  stalledConnections += 1
  stalledSockets.add(socket)
  socket.on('data', () => {})
  socket.on('error', () => {})
  socket.on('close', () => stalledSockets.delete(socket))
})
await new Promise<void>((resolve) => stalledSmtp.listen(0, '127.0.0.1', resolve))

const first = await createTestDatabase()
// The second database on the same server: same machine, same Postgres, separate outbox tables.
const serverUrl = new URL(first.connectionString)
serverUrl.pathname = '/postgres'
const second = await createTestDatabase({ databaseUrl: serverUrl.toString() })

const drainEvents = { sent: 0, retries: 0, failed: 0, unavailable: 0 }
async function side(database: TestDatabase, smtpPort: number) {
  const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 10 })
  await migrate(client)
  const outbox = new PostgresMailOutbox({ client })
  const codes = new PostgresOneTimeCodeStore({ client })
  const accounts = new PostgresAccountStore({ client })
  const rateLimits = new PostgresRateLimitStore({ client })
  const local = new LocalAccounts({
    profile: 'session',
    accounts,
    sessions: new PostgresSessionStore({ client }),
    rateLimits,
    hasher,
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
    signInWith: ['username', 'email'],
  })
  const accountEmail = new AccountEmail({
    accounts,
    local,
    codes,
    outbox,
    notificationSettings: new PostgresNotificationSettings({ client }),
    protector,
    codeKeys: new CodeKeyRing({ version: 1, secret: randomBytes(32) }),
    publicOrigin: ORIGIN,
    rateLimits,
    limits: { perAddress: UNLIMITED, perClient: UNLIMITED },
    signInWith: ['username', 'email'],
    pages: { verifyEmail: '/verify-email', resetPassword: '/reset-password' },
    passwordReset: { unknownAddress: 'notify', signIn: 'never' },
  })
  const security = createSecurity({ mechanisms: local.mechanisms })
  const app = express()
  app.use(security.middleware)
  app.use(localAccountRoutes({ local, security }))
  app.use(accountEmailRoutes({ accountEmail, local, security }))
  const mailer = new SmtpMailer({
    host: '127.0.0.1',
    port: smtpPort,
    security: 'plain',
    from: { address: 'security@bench.example', name: 'Bench' },
    appName: 'Bench',
    maxConnections: 4,
  })
  const drain = new MailOutboxDrain({
    store: outbox,
    mailer,
    protector,
    concurrency: 4,
    pollIntervalMs: 100,
    onEvent: (event) => {
      if (event.type === 'mail.sent') drainEvents.sent += 1
      else if (event.type === 'mail.retry_scheduled') drainEvents.retries += 1
      else if (event.type === 'mail.failed') drainEvents.failed += 1
      else drainEvents.unavailable += 1
    },
  })
  drain.start()
  const server = await listen(app)
  return { client, mailer, drain, server }
}

const healthy = await side(first, (healthySmtp.server.address() as AddressInfo).port)
const stalled = await side(second, (stalledSmtp.address() as AddressInfo).port)
const forgot = (url: string) => ({
  url: `${url}/auth/password/forgot`,
  method: 'POST' as const,
  headers: { 'content-type': 'application/json', origin: ORIGIN },
  // An address without an account under 'notify': every request seals one notice into the outbox.
  body: JSON.stringify({ email: 'nobody@bench.example' }),
})
for (const each of [healthy, stalled]) {
  const probe = await fetch(forgot(each.server.url).url, forgot(each.server.url))
  if (probe.status !== 202) throw new Error(`the forgot-password route answered ${probe.status}`)
}

await compareHttp({
  id: 'smtp-stall',
  title: 'POST /auth/password/forgot with the drain sending to a stalled SMTP server vs a healthy one',
  baseline: { name: 'forgot, SMTP healthy', ...forgot(healthy.server.url) },
  candidate: { name: 'forgot, SMTP stalled', ...forgot(stalled.server.url) },
  budget: 0.9,
  connections: 4,
  sliceMs: 500,
  durationSeconds: 2,
  rounds: 5,
})
console.log(
  `  healthy SMTP received ${received} messages; stalled SMTP accepted ${stalledConnections} connections and wrote nothing; drain events: ${JSON.stringify(drainEvents)}`,
)
if (received === 0 || stalledConnections === 0) {
  console.error('  a drain did not reach its SMTP server: the comparison measured nothing of the stall')
  process.exitCode = 1
}

await Promise.all([healthy.server.close(), stalled.server.close()])
// Unblock the stalled sends (their connections drop) so the drains' rounds settle before stopping.
for (const socket of stalledSockets) socket.destroy()
await new Promise<void>((resolve) => stalledSmtp.close(() => resolve()))
stalled.mailer.close()
healthy.mailer.close()
await Promise.all([healthy.drain.stop(), stalled.drain.stop()])
await Promise.all([healthy.client.close(), stalled.client.close()])
await second.close()
await first.close()
await new Promise<void>((resolve) => healthySmtp.close(() => resolve()))
finish()
