// The transactional outbox as docs/email.md shows it: a password change and its notification committed in
// one Postgres transaction, a change that does not happen writing no mail, and the drain sending after
// commit over SMTP to a real server in this process (smtp-server on loopback).
import { randomBytes, randomUUID } from 'node:crypto'
import { MailOutboxDrain, type MailOutboxDrainEvent, sealOutboxMessage } from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { PostgresAccountStore, PostgresMailOutbox, PostgresNotificationSettings } from '@portcullis/postgres'
import { expect, it } from 'vitest'
import { startExampleSmtp } from '../../test/support/example-mail.js'
import { exampleDatabase } from '../../test/support/example-postgres.js'

const client = await exampleDatabase()
const { received, mailer } = await startExampleSmtp('security@example.com')
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('docs-1', randomBytes(32)),
})
const accounts = new PostgresAccountStore({ client })
const accountId = randomUUID()
await accounts.createAccount({
  accountId,
  username: 'ada',
  passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$b2xk',
  now: new Date(),
})

it('writes the message in the change’s transaction, only when the change happens', async () => {
  const current = await accounts.findPassword({ accountId })
  const newHash = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$bmV3'
  // #region outbox-write
  const now = new Date()
  const notification = await sealOutboxMessage(
    protector,
    {
      kind: 'security-notification',
      to: { address: 'ada@example.com', name: 'Ada' },
      locale: 'en',
      change: { type: 'password-changed' },
      occurredAt: now,
    },
    { now, accountId },
  )
  const changed = await accounts.setPassword({
    accountId,
    passwordHash: newHash,
    expectedPasswordHash: current?.passwordHash, // compare-and-swap: a stale hash changes nothing
    bumpEpoch: true,
    now,
    outbox: [notification], // committed with the new password, or not at all
  })
  // #endregion outbox-write
  expect(changed?.passwordHash).toBe(newHash)
  const stale = await accounts.setPassword({
    accountId,
    passwordHash: newHash,
    expectedPasswordHash: current?.passwordHash,
    bumpEpoch: true,
    now,
    outbox: [
      await sealOutboxMessage(
        protector,
        {
          kind: 'security-notification',
          to: { address: 'ada@example.com' },
          locale: 'en',
          change: { type: 'password-changed' },
          occurredAt: now,
        },
        { now, accountId },
      ),
    ],
  })
  expect(stale).toBeNull()
  const waiting = await client.pool.query<{ id: string }>(
    "select id::text as id from portcullis_mail_outbox where state = 'pending'",
  )
  expect(waiting.rows.map((row) => row.id)).toEqual([notification.id])
})

it('drains after commit over SMTP, and its events carry no recipient', async () => {
  const events: MailOutboxDrainEvent[] = []
  const log = { info: (event: MailOutboxDrainEvent) => events.push(event) }
  // #region outbox-drain
  const drain = new MailOutboxDrain({
    store: new PostgresMailOutbox({ client }),
    mailer, // SmtpMailer, pooled
    protector, // the one the messages were sealed with
    batchSize: 50, // rows claimed per round (FOR UPDATE SKIP LOCKED, leased)
    concurrency: 8, // sends in flight; match the mailer's pool
    leaseSeconds: 120, // a drain that dies releases its rows after this
    backoff: { initialMs: 1_000, factor: 2, maxMs: 15 * 60_000, jitter: 0.5 },
    maxAttempts: 25, // then the message fails for good (kept without its envelope)
    maxAgeMs: 3 * 86_400_000, // a message older than this is not sent any more
    onEvent: (event) => log.info(event), // ids, kinds and error codes only
  })
  drain.start() // polls every 5 s; drain.wake() after a commit sends at once
  // ... on shutdown:
  // await drain.stop()
  // #endregion outbox-drain
  drain.wake()
  const deadline = Date.now() + 5_000
  while (received.length === 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20))
  await drain.stop()
  expect(received).toHaveLength(1)
  expect(received[0]?.to).toMatchObject({ value: [{ address: 'ada@example.com', name: 'Ada' }] })
  expect(events.map((event) => event.type)).toEqual(['mail.sent'])
  expect(JSON.stringify(events)).not.toContain('ada@example.com')
  // #region settings
  const settings = new PostgresNotificationSettings({ client })
  await settings.setOptOuts({ accountId, optOuts: ['mcp-client-connected'], now: new Date() })
  await settings.getOptOuts(accountId) // ['mcp-client-connected']: every other kind stays on
  // #endregion settings
  expect(await settings.getOptOuts(accountId)).toEqual(['mcp-client-connected'])
})
