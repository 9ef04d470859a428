import { randomBytes, randomUUID } from 'node:crypto'
import { sealOutboxMessage } from '@portcullis/core/mail'
import { serializeProtectedEnvelope } from '@portcullis/core/protection'
import { PostgresTotpStore } from '../../src/index.js'
import { type FaultCase, type FaultKit, partial } from './faults.js'

/**
 * Cut cases for TOTP: removing an enrollment writes its "TOTP removed" notification in the same
 * transaction; parked on the outbox table (after the enrollment is deleted), a cut leaves both or
 * neither, never a removal without its notification or a notification of a removal that did not happen.
 */
export function totpFaultCases(kit: FaultKit): readonly FaultCase[] {
  const { db, protector, one } = kit
  return [
    {
      name: 'TOTP removal with its notification in the outbox',
      table: 'portcullis_mail_outbox',
      multiStatement: true,
      async prepare(client) {
        const accountId = `fault-${randomUUID()}`
        const now = new Date()
        const setup = new PostgresTotpStore({ client: db.client })
        const sealedSecret = serializeProtectedEnvelope({
          keyVersion: 'fault-1',
          ciphertext: randomBytes(48),
        })
        await setup.savePendingTotp({ accountId, sealedSecret, now })
        await setup.enableTotp({ accountId, sealedSecret, step: 1, recoveryCodeDigests: [], now })
        const entry = await sealOutboxMessage(
          protector,
          {
            kind: 'security-notification',
            to: { address: 'owner@fault.example' },
            locale: 'en',
            change: { type: 'factor-removed', factor: 'totp' },
            occurredAt: now,
          },
          { now, accountId },
        )
        const store = new PostgresTotpStore({ client })
        return {
          run: () => store.removeTotp(accountId, { outbox: [entry] }),
          async check() {
            const enrollment = await setup.getTotpEnrollment(accountId)
            const row = await one<{ id: string }>(
              'select id::text as id from portcullis_mail_outbox where id = $1',
              [entry.id],
            )
            if (enrollment === null && row !== undefined) return 'written'
            if (enrollment !== null && row === undefined) return 'untouched'
            return partial(
              `enrollment ${enrollment === null ? 'removed' : 'kept'}, notification ${row ? 'written' : 'absent'}`,
            )
          },
        }
      },
    },
  ]
}
