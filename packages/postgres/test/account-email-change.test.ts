import { randomBytes, randomUUID } from 'node:crypto'
import type { AccountEmailError } from '@portcullis/core/account-email'
import { CodeKeyRing } from '@portcullis/core/codes'
import type { SessionSignIn } from '@portcullis/core/local-accounts'
import { type MailMessage, type OutboxRecord, openOutboxMessage } from '@portcullis/core/mail'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { accountEmailInstance } from './support/account-email.js'
import { migratedDatabase, realProtector } from './support/database.js'

// Email change over Postgres, where its atomicity is the store's: completing writes the verified
// primary address and the notification to the old address in one transaction, or neither; two
// instances completing with one code, one wins.

const db = await migratedDatabase()
afterAll(() => db.close())
const protector = realProtector()
const codeKeys = new CodeKeyRing({ version: 1, secret: randomBytes(32) })
const stepUpStore = new MemoryStepUpStore()
const stepUp = new StepUpService({ store: stepUpStore })

/** One app instance over its own pool. */
/** One app instance over its own pool. */
const instance = (client = db.client) => accountEmailInstance(client, { protector, codeKeys, stepUp })

const first = instance()
const second = instance(db.connect())

async function outboxRows(accountId: string): Promise<OutboxRecord[]> {
  const result = await db.client.db.execute(
    sql`select id, kind, account_id, envelope, created_at from portcullis_mail_outbox where account_id = ${accountId} and state = 'pending' order by created_at, id`,
  )
  return (result.rows as Record<string, unknown>[]).map((row) => ({
    id: String(row.id),
    kind: row.kind as MailMessage['kind'],
    accountId: String(row.account_id),
    envelope: String(row.envelope),
    createdAt: new Date(String(row.created_at)),
    attempts: 0,
    nextAttemptAt: new Date(),
    lastError: null,
  }))
}

async function messages(accountId: string): Promise<MailMessage[]> {
  return Promise.all((await outboxRows(accountId)).map((row) => openOutboxMessage(protector, row)))
}

async function linkOf(accountId: string, kind: MailMessage['kind']) {
  const message = (await messages(accountId)).filter((each) => each.kind === kind).at(-1)
  const link = message !== undefined && 'link' in message ? (message.link ?? '') : ''
  const url = new URL(link || 'https://app.example/')
  return {
    flow: url.searchParams.get('flow') ?? '',
    code: new URLSearchParams(url.hash.slice(1)).get('code') ?? '',
  }
}

async function aliceAsking(newAddress: string) {
  const username = `alice-${randomUUID().slice(0, 8)}`
  const { accountId } = await first.local.register({ username, password: 'correct horse battery staple' })
  const address = `${username}@example.com`
  await first.accounts.addEmailAddress({ accountId, address, now: new Date() })
  await first.accounts.verifyEmailAddress({ accountId, address, now: new Date() })
  const signIn = (await first.local.login({
    username,
    password: 'correct horse battery staple',
  })) as SessionSignIn
  const session = { accountId, securityEpoch: 1, sessionHandle: signIn.handle }
  const credentials = { sessionHandle: signIn.handle, securityEpoch: 1 }
  const token = await stepUp.issue({
    accountId,
    purpose: 'email-change',
    securityEpoch: 1,
    sessionBinding: signIn.handle,
  })
  await first.accountEmail.requestEmailChange({
    session,
    stepUpToken: token.reveal(),
    body: { email: newAddress },
  })
  return {
    accountId,
    address,
    session,
    credentials,
    code: await linkOf(accountId, 'email-change-verification'),
  }
}

const addressesOf = async (accountId: string) =>
  (await first.accounts.listEmailAddresses(accountId)).map(
    (each) => `${each.address}${each.primary ? ' primary' : ''}${each.verified ? ' verified' : ''}`,
  )

describe('email change on Postgres', () => {
  it('commits the verified primary address and the notification to the old address together', async () => {
    const newAddress = `new-${randomUUID().slice(0, 8)}@example.com`
    const alice = await aliceAsking(newAddress)
    expect(await addressesOf(alice.accountId)).toEqual([`${alice.address} primary verified`])
    await first.accountEmail.completeEmailChange({
      session: alice.session,
      body: alice.code,
      credentials: alice.credentials,
    })
    expect(await addressesOf(alice.accountId)).toEqual([
      `${newAddress} primary verified`,
      `${alice.address} verified`,
    ])
    const notes = (await messages(alice.accountId)).filter((each) => each.kind === 'security-notification')
    expect(notes).toMatchObject([
      { to: { address: alice.address }, change: { type: 'address-changed', address: newAddress } },
    ])
  })

  it('changes nothing when the notification cannot be written: address and message both or neither', async () => {
    const newAddress = `new-${randomUUID().slice(0, 8)}@example.com`
    const alice = await aliceAsking(newAddress)
    // The notification's row id is taken already: its insert fails inside the change's transaction.
    const notifier = first.accountEmail.notifier
    const entries = notifier.entries.bind(notifier)
    const taken = randomUUID()
    await db.client.db.execute(
      sql`insert into portcullis_mail_outbox (id, kind, account_id, envelope, created_at, next_attempt_at) values (${taken}, 'security-notification', ${alice.accountId}, 'x', now(), now())`,
    )
    notifier.entries = async (...args) => (await entries(...args)).map((entry) => ({ ...entry, id: taken }))
    try {
      const failed = await first.accountEmail
        .completeEmailChange({ session: alice.session, body: alice.code, credentials: alice.credentials })
        .catch((error: unknown) => error)
      expect((failed as AccountEmailError).code).toBe('mail.duplicate_outbox_entry')
    } finally {
      notifier.entries = entries
    }
    expect(await addressesOf(alice.accountId)).toEqual([`${alice.address} primary verified`])
    expect((await first.accounts.findAccountByVerifiedEmail(newAddress))?.accountId).toBeUndefined()
    expect((await first.accounts.getAccount(alice.accountId))?.securityEpoch).toBe(1)
  })

  it('two instances completing with one code: one wins, the other is refused', async () => {
    const newAddress = `new-${randomUUID().slice(0, 8)}@example.com`
    const alice = await aliceAsking(newAddress)
    const attempt = (app: typeof first) =>
      app.accountEmail
        .completeEmailChange({ session: alice.session, body: alice.code, credentials: alice.credentials })
        .then(
          () => 'changed',
          (error: { code?: string }) => error.code,
        )
    const outcomes = await Promise.all([attempt(first), attempt(second)])
    expect(outcomes.sort()).toEqual(['account_email.invalid_code', 'changed'])
    expect((await addressesOf(alice.accountId))[0]).toBe(`${newAddress} primary verified`)
  })
})
