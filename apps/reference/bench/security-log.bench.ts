// The security log on the sign-in route (issue 44, DESIGN.md section 5: the log costs the sign-in route
// <= 5%): POST /auth/login (argon2id with OWASP parameters, Postgres stores, a session created per
// request) with a SecurityLogWriter on PostgresSecurityLog as the event sink, vs the same app without a
// sink, on one database, interleaved rounds. Budget >= 0.95x. The writer's stats are printed after the
// run: everything it accepted was written (nothing dropped).

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { argon2idPasswordHasher } from '@portcullis/argon2'
import { compareHttp, finish } from '@portcullis/bench'
import { LocalAccounts, PASSWORD_ACCEPTED, type SecurityEventSink } from '@portcullis/core/local-accounts'
import { SecurityLogWriter } from '@portcullis/core/security-log'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { createSecurity, localAccountRoutes } from '@portcullis/express'
import { describeUserAgent } from '@portcullis/http/user-agents'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresRateLimitStore,
  PostgresSecurityLog,
  PostgresSessionStore,
} from '@portcullis/postgres'
import express from 'express'

const ORIGIN = 'https://bench.example'
const PASSWORD = 'correct horse battery staple'
const database = await createTestDatabase()
const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 10 })
await migrate(client)
const hasher = argon2idPasswordHasher()
const stores = {
  accounts: new PostgresAccountStore({ client }),
  sessions: new PostgresSessionStore({ client }),
  rateLimits: new PostgresRateLimitStore({ client }),
}
const writer = new SecurityLogWriter({
  log: new PostgresSecurityLog({ client }),
  clientAddresses: { hashKey: new Uint8Array(32).fill(7) },
  describeUserAgent,
})

function app(events: SecurityEventSink | undefined) {
  const local = new LocalAccounts({
    profile: 'session',
    ...stores,
    hasher,
    registration: 'open',
    publicOrigin: ORIGIN,
    passwordScreen: { screen: async () => PASSWORD_ACCEPTED },
    rateLimit: {
      perAccount: { limit: 1_000_000, windowSeconds: 60 },
      perAddress: { limit: 1_000_000, windowSeconds: 60 },
    },
    ...(events === undefined ? {} : { events }),
  })
  const security = createSecurity({ mechanisms: local.mechanisms })
  const server = express()
  server.use(security.middleware)
  server.use(localAccountRoutes({ local, security }))
  return { server, local }
}

/**
 * Like the harness's `listen`, with a keep-alive timeout longer than one side's idle time: a sign-in
 * takes a few hundred milliseconds of hashing, so a side waits seconds while the other runs its slice.
 */
async function listen(handler: express.Express): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer({ keepAlive: true, keepAliveTimeout: 60_000 }, handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}

const off = app(undefined)
const on = app(writer.sink)
await off.local.register({ username: 'bench', password: PASSWORD })
const [offServer, onServer] = await Promise.all([listen(off.server), listen(on.server)])
const login = (url: string) => ({
  url: `${url}/auth/login`,
  method: 'POST' as const,
  headers: {
    'content-type': 'application/json',
    origin: ORIGIN,
    'user-agent':
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  },
  body: JSON.stringify({ username: 'bench', password: PASSWORD }),
})
const probe = await fetch(login(onServer.url).url, login(onServer.url))
if (probe.status !== 200) throw new Error(`the sign-in route answered ${probe.status}`)

await compareHttp({
  id: 'security-log-sign-in',
  title: 'sign-in route with the security log (Postgres, batched writer) vs without',
  baseline: { name: 'sign-in, no log', ...login(offServer.url) },
  candidate: { name: 'sign-in, security log', ...login(onServer.url) },
  budget: 0.95,
  connections: 2,
  sliceMs: 2000,
  durationSeconds: 8,
})
await writer.flush(30_000)
const stats = writer.stats()
console.log(
  `  writer: ${stats.accepted} accepted, ${stats.written} written in ${stats.batches} batches, ${stats.dropped} dropped, ${stats.failedWrites} failed writes`,
)
if (stats.written !== stats.accepted || stats.dropped > 0) {
  console.error('  the writer lost events')
  process.exitCode = 1
}
await writer.close()
await Promise.all([offServer.close(), onServer.close()])
await client.close()
await database.close()
finish()
