// The outbox drain to a loopback SMTP server: messages sealed in the Postgres outbox (migration 14),
// claimed, opened and sent over pooled SMTP by `MailOutboxDrain`, against the same messages sent straight
// through the same `SmtpMailer` with the same concurrency (what the drain adds: claim, open, complete).
// Budget (issue 43): the drain sends >= 200 messages/s, recorded as its rate over 200/s (>= 1.0x).
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { finish, recordComparison } from '@portcullis/bench'
import { type MailMessage, MailOutboxDrain, sealOutboxMessage } from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { SmtpMailer } from '@portcullis/mail'
import { createPostgresClient, migrate, PostgresMailOutbox } from '@portcullis/postgres'
import { SMTPServer } from 'smtp-server'

const MESSAGES = 400
const CONCURRENCY = 8
const ROUNDS = 5

let received = 0
const smtp = new SMTPServer({
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
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
const { port } = smtp.server.address() as AddressInfo

const database = await createTestDatabase()
const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 10 })
await migrate(client)
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('bench', randomBytes(32)),
})
const mailer = new SmtpMailer({
  host: '127.0.0.1',
  port,
  security: 'plain',
  from: { address: 'security@bench.example', name: 'Bench' },
  appName: 'Bench',
  maxConnections: CONCURRENCY,
})
const outbox = new PostgresMailOutbox({ client })

const message = (n: number): MailMessage => ({
  kind: 'password-reset',
  to: { address: `person${n}@bench.example`, name: `Person ${n}` },
  locale: 'en',
  code: `${100000 + (n % 900000)}`,
  link: `https://bench.example/reset?flow=f${n}#code=${100000 + (n % 900000)}`,
  validForMinutes: 60,
})

let serial = 0
async function direct(): Promise<number> {
  const start = received
  const began = performance.now()
  let next = 0
  const worker = async () => {
    while (next < MESSAGES) {
      const n = serial + next++
      await mailer.send(message(n), { idempotencyKey: `direct-${n}` })
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  serial += MESSAGES
  const elapsed = performance.now() - began
  if (received - start !== MESSAGES) throw new Error(`direct: ${received - start} of ${MESSAGES} received`)
  return (MESSAGES * 1000) / elapsed
}

async function drained(): Promise<number> {
  const now = new Date()
  const entries = await Promise.all(
    Array.from({ length: MESSAGES }, (_, n) =>
      sealOutboxMessage(protector, message(serial + n), { now, accountId: null }),
    ),
  )
  serial += MESSAGES
  for (let index = 0; index < entries.length; index += 16)
    await outbox.enqueue(entries.slice(index, index + 16))
  const drain = new MailOutboxDrain({
    store: outbox,
    mailer,
    protector,
    batchSize: 100,
    concurrency: CONCURRENCY,
  })
  const start = received
  const began = performance.now()
  let sent = 0
  for (;;) {
    const report = await drain.drainOnce()
    sent += report.sent
    if (report.claimed === 0) break
  }
  const elapsed = performance.now() - began
  if (sent !== MESSAGES || received - start !== MESSAGES) {
    throw new Error(`drain: ${sent} sent, ${received - start} of ${MESSAGES} received`)
  }
  return (MESSAGES * 1000) / elapsed
}

await direct()
await drained()
const directRates: number[] = []
const drainRates: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  if (round % 2 === 0) {
    directRates.push(await direct())
    drainRates.push(await drained())
  } else {
    drainRates.push(await drained())
    directRates.push(await direct())
  }
}
const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number
recordComparison({
  id: 'outbox-drain',
  title: `outbox drain (Postgres outbox, ${CONCURRENCY} sends at once) vs the 200 messages/s budget, loopback SMTP`,
  baseline: { name: 'budget: 200 messages/s', perSecond: 200 },
  candidate: { name: 'MailOutboxDrain', perSecond: median(drainRates) },
  ratio: median(drainRates) / 200,
  rounds: drainRates.map((rate) => rate / 200),
  budget: 1,
})
recordComparison({
  title: `outbox drain vs the same messages sent straight through SmtpMailer (${CONCURRENCY} at once), loopback SMTP`,
  baseline: { name: 'SmtpMailer.send', perSecond: median(directRates) },
  candidate: { name: 'MailOutboxDrain', perSecond: median(drainRates) },
  ratio: median(drainRates.map((rate, index) => rate / (directRates[index] as number))),
  rounds: drainRates.map((rate, index) => rate / (directRates[index] as number)),
})
mailer.close()
await client.close()
await database.close()
await new Promise<void>((resolve) => smtp.close(() => resolve()))
finish()
