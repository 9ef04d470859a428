// The outbox drain over the real SMTP transport: account changes write their mail to the outbox and
// commit while the mail server is down; the drain retries with backoff (an injected clock runs
// 60x faster than the wall clock, so two real seconds are two minutes of outage) and, once the server is
// back on its port, delivers every message exactly once, each under its outbox id as Message-ID.
import { randomBytes, randomUUID } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import {
  MailOutboxDrain,
  type MailOutboxDrainEvent,
  MemoryMailOutbox,
  sealOutboxMessage,
} from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { afterEach, describe, expect, it } from 'vitest'
import { SmtpMailer } from '../src/index.js'
import { CERTIFICATE, startSmtpServer, type TestSmtpServer } from './support/smtp-server.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
})
const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'

function mailerTo(port: number): SmtpMailer {
  const mailer = new SmtpMailer({
    host: '127.0.0.1',
    port,
    security: 'starttls',
    ca: CERTIFICATE.cert,
    from: { address: 'security@example.com', name: 'Example Security' },
    appName: 'Example',
    timeouts: { connectionMs: 1_000, greetingMs: 1_000, socketMs: 5_000 },
  })
  cleanups.push(async () => mailer.close())
  return mailer
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
}

describe('MailOutboxDrain over SmtpMailer', () => {
  it('a mail server down for two minutes: changes commit with their mail meanwhile, every message arrives once when it is back', async () => {
    // Take a free port, then stop the server: nothing listens there while it is "down".
    const first = await startSmtpServer()
    const port = first.port
    await first.close()

    const outbox = new MemoryMailOutbox()
    const accounts = new MemoryAccountStore({ outbox })
    const start = Date.now()
    const clock = () => new Date(start + (Date.now() - start) * 60)
    const events: MailOutboxDrainEvent[] = []
    const mailer = mailerTo(port)
    const drain = new MailOutboxDrain({
      store: outbox,
      mailer,
      protector,
      clock,
      pollIntervalMs: 50,
      leaseSeconds: 30,
      backoff: { initialMs: 1_000, factor: 2, maxMs: 30_000 },
      onEvent: (event) => events.push(event),
    })
    drain.start()
    cleanups.push(() => drain.stop())

    const ids: string[] = []
    for (let n = 0; n < 12; n++) {
      const accountId = randomUUID()
      const created = await accounts.createAccount({
        accountId,
        username: `person${n}`,
        passwordHash: HASH,
        now: clock(),
        outbox: [
          await sealOutboxMessage(
            protector,
            {
              kind: 'verification',
              to: { address: `person${n}@example.com` },
              locale: 'en',
              code: `${100000 + n}`,
              validForMinutes: 60 * 24,
            },
            { now: clock(), accountId },
          ),
        ],
      })
      expect(created.outcome).toBe('created')
      ids.push(
        ...outbox
          .pending()
          .map((row) => row.id)
          .filter((id) => !ids.includes(id)),
      )
      drain.wake()
    }
    expect(ids).toHaveLength(12)

    // Down: the drain keeps failing retryably and rescheduling; nothing is lost or given up.
    await until(() => events.filter((event) => event.type === 'mail.retry_scheduled').length >= 24, 5_000)
    expect(events.some((event) => event.type === 'mail.retry_scheduled')).toBe(true)
    expect(events.filter((event) => event.type === 'mail.failed')).toEqual([])
    expect(outbox.pending()).toHaveLength(12)
    await until(() => Date.now() - start >= 2_000, 3_000)

    // Back on the same port.
    const server: TestSmtpServer = await startSmtpServer({ port })
    // Closed after the drain and the mailer (reverse order), so no pooled connection holds it open.
    cleanups.unshift(() => server.close())
    drain.wake()
    await until(() => server.received.length >= 12 && outbox.pending().length === 0, 10_000)

    expect(outbox.pending()).toEqual([])
    expect(outbox.failed()).toEqual([])
    const messageIds = server.received.map((mail) => mail.parsed.messageId)
    expect(messageIds).toHaveLength(12)
    expect(new Set(messageIds).size).toBe(12)
    expect(messageIds.map((id) => id?.slice(1, 37)).sort()).toEqual([...ids].sort())
    const codes = server.received.map((mail) => /\b1000\d\d\b/.exec(mail.parsed.text ?? '')?.[0]).sort()
    expect(codes).toEqual(Array.from({ length: 12 }, (_, n) => `${100000 + n}`).sort())
    expect(server.received.every((mail) => mail.secure)).toBe(true)
    // The outage lasted two minutes of drain time, and retries were spread out by the backoff.
    const retries = events.filter((event) => event.type === 'mail.retry_scheduled')
    expect(
      Math.max(...retries.map((event) => (event.type === 'mail.retry_scheduled' ? event.attempts : 0))),
    ).toBeGreaterThan(2)
    expect(JSON.stringify(events)).not.toMatch(/person\d+@example\.com|1000\d\d/)
  })
})
