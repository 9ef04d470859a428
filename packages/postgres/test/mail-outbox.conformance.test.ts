import { randomUUID } from 'node:crypto'
import { mailOutboxSuite, notificationSettingsSuite } from '@portcullis/conformance/mail'
import { describeConformance } from '@portcullis/conformance/vitest'
import { afterAll, describe } from 'vitest'
import { PostgresAccountStore, PostgresMailOutbox, PostgresNotificationSettings } from '../src/index.js'
import { migratedDatabase, splitRaceCases } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())
const other = db.connect(8)

// Every case starts from an empty outbox; the race cases claim through two pools, as two app instances.
const { races, others } = splitRaceCases(
  mailOutboxSuite(async () => {
    await db.client.pool.query('delete from portcullis_mail_outbox')
    return {
      store: new PostgresMailOutbox({ client: db.client }),
      peer: new PostgresMailOutbox({ client: other }),
    }
  }),
)
describeConformance(others)
describe('concurrent database, two app instances', () => {
  describeConformance(races)
})

const accounts = new PostgresAccountStore({ client: db.client })
describeConformance(
  notificationSettingsSuite(() => ({
    store: new PostgresNotificationSettings({ client: db.client }),
    async createAccount() {
      const accountId = randomUUID()
      const created = await accounts.createAccount({
        accountId,
        username: `settings-${accountId}`,
        passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
        now: new Date(),
      })
      if (created.outcome !== 'created') throw new Error(`account fixture: ${created.outcome}`)
      return accountId
    },
    async deleteAccount(accountId) {
      const deleted = await accounts.deleteAccount({ accountId, now: new Date() })
      if (deleted.outcome !== 'deleted') throw new Error(`account fixture: ${deleted.outcome}`)
    },
  })),
)
