import { randomBytes, randomUUID } from 'node:crypto'
import { CodeKeyRing } from '@portcullis/core/codes'
import type { SessionSignIn } from '@portcullis/core/local-accounts'
import { type MailMessage, openOutboxMessage } from '@portcullis/core/mail'
import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { accountEmailInstance } from './support/account-email.js'
import { migratedDatabase, realProtector } from './support/database.js'

// Sign-up with verification and password reset over Postgres, on two app instances with their own
// pools: one code consumed by two instances at once has one winner, two accounts verifying one
// address have one winner, and a reset writes the password, the epoch and its notification (one
// setPassword transaction of the store), after which the other instance has no old session left.

const db = await migratedDatabase()
afterAll(() => db.close())
const protector = realProtector()
const codeKeys = new CodeKeyRing({ version: 1, secret: randomBytes(32) })
const PASSWORD = 'a long and unusual passphrase'

/** One app instance over its own pool. */
const instance = (client = db.client) => accountEmailInstance(client, { protector, codeKeys })

const first = instance()
const second = instance(db.connect())

/** The newest pending message of `kind` to `address`, with the flow and code of its link. */
async function mailTo(kind: MailMessage['kind'], address: string) {
  const result = await db.client.db.execute(
    sql`select id, kind, account_id, envelope, created_at from portcullis_mail_outbox where kind = ${kind} and state = 'pending' order by created_at desc, id limit 200`,
  )
  for (const row of result.rows as Record<string, unknown>[]) {
    const message = await openOutboxMessage(protector, {
      id: String(row.id),
      kind: row.kind as MailMessage['kind'],
      accountId: row.account_id === null ? null : String(row.account_id),
      envelope: String(row.envelope),
    })
    if (message.to.address !== address) continue
    const url = new URL(
      'link' in message && message.link !== undefined ? message.link : 'https://app.example/',
    )
    return {
      message,
      accountId: row.account_id === null ? null : String(row.account_id),
      flow: url.searchParams.get('flow') ?? '',
      code: new URLSearchParams(url.hash.slice(1)).get('code') ?? '',
    }
  }
  return undefined
}

const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.com`

async function verified(address: string) {
  const { flow } = await first.accountEmail.signUp({ email: address, password: PASSWORD })
  const sent = await mailTo('verification', address)
  const { accountId } = await first.accountEmail.verifyEmail({ flow, code: sent?.code })
  return accountId
}

describe('account email flows on Postgres, two instances', () => {
  it('a verification code consumed on two instances at once verifies once', async () => {
    const address = unique('race')
    const { flow } = await first.accountEmail.signUp({ email: address, password: PASSWORD })
    const sent = await mailTo('verification', address)
    expect(sent?.code).toMatch(/^\d{6}$/)
    const results = await Promise.allSettled([
      first.accountEmail.verifyEmail({ flow, code: sent?.code }),
      second.accountEmail.verifyEmail({ flow, code: sent?.code }),
    ])
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
    expect(results.find((result) => result.status === 'rejected')).toMatchObject({
      reason: { code: 'account_email.invalid_code' },
    })
  })

  it('two accounts verifying one address on two instances: one keeps it, the other is told it is taken', async () => {
    const address = unique('shared')
    const one = await first.accountEmail.signUp({ email: address, password: PASSWORD })
    const oneCode = (await mailTo('verification', address))?.code
    const two = await second.accountEmail.signUp({ email: address, password: 'another unusual passphrase' })
    const twoCode = (await mailTo('verification', address))?.code
    expect(twoCode).not.toBe(undefined)
    const results = await Promise.allSettled([
      first.accountEmail.verifyEmail({ flow: one.flow, code: oneCode }),
      second.accountEmail.verifyEmail({ flow: two.flow, code: twoCode }),
    ])
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
    expect(results.find((result) => result.status === 'rejected')).toMatchObject({
      reason: { code: 'account_email.address_taken' },
    })
  })

  it('a reset moves the epoch and writes its notification; the other instance refuses the old session; one of two racing resets wins', async () => {
    const address = unique('reset')
    const accountId = await verified(address)
    const session = (await second.local.login({ username: address, password: PASSWORD })) as SessionSignIn
    const before = (await first.accounts.getAccount(accountId))?.securityEpoch ?? 0
    await first.accountEmail.requestPasswordReset({ email: address })
    const sent = await mailTo('password-reset', address)
    expect(sent?.accountId).toBe(accountId)
    const results = await Promise.allSettled([
      first.accountEmail.resetPassword({
        flow: sent?.flow,
        code: sent?.code,
        password: 'the first new passphrase',
      }),
      second.accountEmail.resetPassword({
        flow: sent?.flow,
        code: sent?.code,
        password: 'the second new passphrase',
      }),
    ])
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
    expect((await first.accounts.getAccount(accountId))?.securityEpoch).toBe(before + 1)
    const notice = await mailTo('security-notification', address)
    expect(notice?.message).toMatchObject({ change: { type: 'password-reset' } })
    // the session made on the second instance is refused there: its record is gone with the epoch
    const live = await second.sessions.list({ accountId, now: new Date() })
    expect(live.find((record) => record.handle === session.handle)).toBeUndefined()
  })

  it('a reset request for a known and an unknown address writes one code and one message each', async () => {
    const address = unique('known')
    await verified(address)
    const count = async () =>
      Number(
        (
          (await db.client.db.execute(sql`select count(*)::int as n from portcullis_mail_outbox`))
            .rows[0] as { n: number }
        ).n,
      )
    const start = await count()
    await first.accountEmail.requestPasswordReset({ email: address })
    const afterKnown = await count()
    await first.accountEmail.requestPasswordReset({ email: unique('unknown') })
    expect(afterKnown - start).toBe(1)
    expect((await count()) - afterKnown).toBe(1)
  })
})
