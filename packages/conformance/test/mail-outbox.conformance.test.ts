import { MemoryMailOutbox, MemoryNotificationSettings } from '@portcullis/core/mail'
import { describeConformance } from '../src/bindings/vitest.js'
import { mailOutboxSuite, notificationSettingsSuite } from '../src/mail/index.js'

// The memory outbox and notification settings pass every case (one outbox shared by the two "instances").
describeConformance(
  mailOutboxSuite(() => {
    const store = new MemoryMailOutbox()
    return { store, peer: store }
  }),
)

describeConformance(
  notificationSettingsSuite(() => {
    const accounts = new Set<string>()
    const store = new MemoryNotificationSettings({ accountExists: (id) => accounts.has(id) })
    let next = 0
    return {
      store,
      createAccount: async () => {
        const id = `account-${++next}`
        accounts.add(id)
        return id
      },
      deleteAccount: async (id) => {
        accounts.delete(id)
        store.forget(id)
      },
    }
  }),
)
