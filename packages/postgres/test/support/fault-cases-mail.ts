import { randomUUID } from 'node:crypto'
import { sealOutboxMessage } from '@portcullis/core/mail'
import { PostgresAccountStore, PostgresMailOutbox } from '../../src/index.js'
import { type FaultCase, type FaultKit, partial } from './faults.js'

/**
 * Cut cases for the mail outbox: a password change that writes its notification in the same transaction
 * is parked on the outbox table (after the password and epoch are written), so a cut leaves both or
 * neither, never a change without its message or a message without its change.
 */
export function mailFaultCases(kit: FaultKit): readonly FaultCase[] {
  const { db, protector, one } = kit
  return [
    {
      name: 'password change with its notification in the outbox',
      table: 'portcullis_mail_outbox',
      multiStatement: true,
      async prepare(client) {
        const accountId = randomUUID()
        const now = new Date()
        const setup = new PostgresAccountStore({ client: db.client })
        await setup.createAccount({
          accountId,
          username: `fault-${randomUUID().slice(0, 12)}`,
          passwordHash: '$argon2id$old',
          now,
        })
        const entry = await sealOutboxMessage(
          protector,
          {
            kind: 'security-notification',
            to: { address: 'owner@fault.example' },
            locale: 'en',
            change: { type: 'password-changed' },
            occurredAt: now,
          },
          { now, accountId },
        )
        const store = new PostgresAccountStore({ client })
        return {
          run: () =>
            store.setPassword({
              accountId,
              passwordHash: '$argon2id$new',
              now,
              bumpEpoch: true,
              outbox: [entry],
            }),
          async check() {
            const account = await setup.findPassword({ accountId })
            const row = await one<{ id: string }>(
              'select id::text as id from portcullis_mail_outbox where id = $1',
              [entry.id],
            )
            const changed = account?.passwordHash === '$argon2id$new' && account.securityEpoch === 2
            const unchanged = account?.passwordHash === '$argon2id$old' && account.securityEpoch === 1
            if (changed && row !== undefined) return 'written'
            if (unchanged && row === undefined) return 'untouched'
            return partial(
              `password ${changed ? 'changed' : unchanged ? 'unchanged' : 'half-changed'}, message ${row ? 'written' : 'absent'}`,
            )
          },
        }
      },
    },
    {
      name: 'outbox enqueue of a batch',
      table: 'portcullis_mail_outbox',
      multiStatement: true,
      async prepare(client) {
        const now = new Date()
        const entries = await Promise.all(
          [1, 2, 3].map(() =>
            sealOutboxMessage(
              protector,
              { kind: 'unknown-account-reset', to: { address: 'nobody@fault.example' }, locale: 'en' },
              { now, accountId: null },
            ),
          ),
        )
        const outbox = new PostgresMailOutbox({ client })
        return {
          run: () => outbox.enqueue(entries),
          async check() {
            const found = await one<{ count: string }>(
              'select count(*)::text as count from portcullis_mail_outbox where id = any($1::uuid[])',
              [entries.map((entry) => entry.id)],
            )
            if (found?.count === '3') return 'written'
            if (found?.count === '0') return 'untouched'
            return partial(`${found?.count} of 3 rows`)
          },
        }
      },
    },
  ]
}
