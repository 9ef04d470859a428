import { randomUUID } from 'node:crypto'
import { CodeKeyRing, generateFlowId, type NewOneTimeCode } from '@portcullis/core/codes'
import { sealOutboxMessage } from '@portcullis/core/mail'
import { PostgresAccountStore, PostgresOneTimeCodeStore } from '../../src/index.js'
import { type FaultCase, type FaultKit, partial } from './faults.js'

const ring = new CodeKeyRing({ version: 1, secret: new Uint8Array(32).fill(0x5a) })

function resetCode(accountId: string, plain: string, now: Date): NewOneTimeCode {
  const id = generateFlowId()
  return {
    id,
    purpose: 'password-reset',
    accountId,
    address: 'owner@fault.example',
    ...ring.issueDigest({ id, purpose: 'password-reset', code: plain }),
    maxAttempts: 5,
    createdAt: now,
    expiresAt: new Date(now.getTime() + 3_600_000),
    payload: null,
  }
}

/**
 * Cut cases for the one-time code store: an issue that supersedes an older code and writes its mail
 * (parked on the outbox, after the old code is deleted and the new one inserted), and a wrong code being
 * counted (parked on the codes table). A cut leaves the whole change or none of it: never an account
 * with no live code and no mail, a code without its mail, or half an attempt.
 */
export function codeFaultCases(kit: FaultKit): readonly FaultCase[] {
  const { db, protector, one } = kit
  async function account(now: Date): Promise<string> {
    const accountId = randomUUID()
    const created = await new PostgresAccountStore({ client: db.client }).createAccount({
      accountId,
      username: `fault-${randomUUID().slice(0, 12)}`,
      passwordHash: '$argon2id$x',
      now,
    })
    if (created.outcome !== 'created') throw new Error(created.outcome)
    return accountId
  }
  const codeRow = (id: string) =>
    one<{ attempts: number }>('select attempts from portcullis_one_time_codes where id = $1', [id])
  return [
    {
      name: 'code issue superseding an older code, with its mail in the outbox',
      table: 'portcullis_mail_outbox',
      multiStatement: true,
      async prepare(client) {
        const now = new Date()
        const accountId = await account(now)
        const older = resetCode(accountId, '111111', now)
        await new PostgresOneTimeCodeStore({ client: db.client }).issue({ code: older })
        const newer = resetCode(accountId, '222222', now)
        const mail = await sealOutboxMessage(
          protector,
          {
            kind: 'password-reset',
            to: { address: 'owner@fault.example' },
            locale: 'en',
            code: '222222',
            validForMinutes: 60,
          },
          { now, accountId },
        )
        const store = new PostgresOneTimeCodeStore({ client })
        return {
          run: () => store.issue({ code: newer, outbox: [mail] }),
          async check() {
            const [old, fresh] = [await codeRow(older.id), await codeRow(newer.id)]
            const sent = await one('select 1 from portcullis_mail_outbox where id = $1', [mail.id])
            if (old === undefined && fresh !== undefined && sent !== undefined) return 'written'
            if (old !== undefined && fresh === undefined && sent === undefined) return 'untouched'
            return partial(
              `old code ${old ? 'kept' : 'gone'}, new ${fresh ? 'stored' : 'absent'}, mail ${sent ? 'written' : 'absent'}`,
            )
          },
        }
      },
    },
    {
      name: 'a wrong code counted',
      table: 'portcullis_one_time_codes',
      multiStatement: true,
      async prepare(client) {
        const now = new Date()
        const code = resetCode(await account(now), '333333', now)
        await new PostgresOneTimeCodeStore({ client: db.client }).issue({ code })
        const before = (await codeRow(code.id))?.attempts ?? -1
        const store = new PostgresOneTimeCodeStore({ client })
        return {
          run: () =>
            store.consume({
              id: code.id,
              purpose: code.purpose,
              candidates: ring.candidates({ id: code.id, purpose: code.purpose, code: '000000' }),
              now,
            }),
          async check() {
            const attempts = (await codeRow(code.id))?.attempts
            if (attempts === before + 1) return 'written'
            if (attempts === before) return 'untouched'
            return partial(`attempts went from ${before} to ${attempts}`)
          },
        }
      },
    },
  ]
}
