import { randomUUID } from 'node:crypto'
import { CodeKeyRing, generateFlowId, type NewOneTimeCode } from '@portcullis/core/codes'
import { sealOutboxMessage } from '@portcullis/core/mail'
import { PostgresAccountStore } from '../../src/index.js'
import { type FaultCase, type FaultKit, partial } from './faults.js'

const ring = new CodeKeyRing({ version: 1, secret: new Uint8Array(32).fill(0x5b) })

function verificationCode(accountId: string, address: string, now: Date): NewOneTimeCode {
  const id = generateFlowId()
  return {
    id,
    purpose: 'email-verification',
    accountId,
    address,
    ...ring.issueDigest({ id, purpose: 'email-verification', code: '314159' }),
    maxAttempts: 5,
    createdAt: now,
    expiresAt: new Date(now.getTime() + 86_400_000),
    payload: null,
  }
}

/**
 * Cut cases for sign-up with verification (`createAccount` with the address, the code and its mail, as
 * `AccountEmail.signUp` makes it): parked on the codes table (after the account, its password and its
 * address are inserted) and on the outbox (after the code too). A cut leaves the account, its address,
 * its code and its mail all written or all absent: never an account nobody can verify, a code for no
 * account, or mail for a code that does not exist.
 */
export function signUpFaultCases(kit: FaultKit): readonly FaultCase[] {
  const { protector, one } = kit
  const parked = (table: string, where: string): FaultCase => ({
    name: `sign-up with its address, verification code and mail (cut ${where})`,
    table,
    multiStatement: true,
    async prepare(client) {
      const now = new Date()
      const accountId = randomUUID()
      const address = `signup-${randomUUID().slice(0, 12)}@fault.example`
      const code = verificationCode(accountId, address, now)
      const mail = await sealOutboxMessage(
        protector,
        {
          kind: 'verification',
          to: { address },
          locale: 'en',
          code: '314159',
          link: `https://app.example/verify-email?flow=${code.id}#code=314159`,
          validForMinutes: 1440,
        },
        { now, accountId },
      )
      const store = new PostgresAccountStore({ client })
      return {
        run: () =>
          store.createAccount({
            accountId,
            username: `u-${randomUUID().replaceAll('-', '').slice(0, 20)}`,
            passwordHash: '$argon2id$x',
            now,
            emailAddress: address,
            code,
            outbox: [mail],
          }),
        async check() {
          const parts = {
            account: await one('select 1 from portcullis_accounts where account_id = $1', [accountId]),
            password: await one('select 1 from portcullis_passwords where account_id = $1', [accountId]),
            address: await one(
              'select 1 from portcullis_email_addresses where account_id = $1 and address = $2 and verified_at is null and is_primary',
              [accountId, address],
            ),
            code: await one('select 1 from portcullis_one_time_codes where id = $1 and account_id = $2', [
              code.id,
              accountId,
            ]),
            mail: await one('select 1 from portcullis_mail_outbox where id = $1', [mail.id]),
          }
          const present = Object.values(parts).filter((row) => row !== undefined).length
          if (present === 5) return 'written'
          if (present === 0) return 'untouched'
          return partial(
            Object.entries(parts)
              .map(([part, row]) => `${part} ${row === undefined ? 'absent' : 'written'}`)
              .join(', '),
          )
        },
      }
    },
  })
  return [
    parked('portcullis_one_time_codes', 'before the code'),
    parked('portcullis_mail_outbox', 'before the mail'),
  ]
}
