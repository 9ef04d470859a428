import { randomUUID } from 'node:crypto'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { MemoryMailOutbox } from '@portcullis/core/mail'
import { MemoryOrganizationStore } from '@portcullis/core/organizations'
import { MemoryRevocationNotices } from '@portcullis/core/revocation'
import { describeConformance } from '../src/bindings/vitest.js'
import { type JoinRequestStoresFixture, joinRequestStoresSuite } from '../src/organizations/index.js'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'

function memoryJoinRequestFixture(): JoinRequestStoresFixture {
  const notices = new MemoryRevocationNotices()
  const store = new MemoryOrganizationStore({ notices, outbox: new MemoryMailOutbox() })
  const accounts = new MemoryAccountStore({ cascade: [store], notices })
  return {
    store,
    notices,
    peerNotices: notices,
    async createAccount(options = {}) {
      const accountId = randomUUID()
      const now = new Date()
      await accounts.createAccount({ accountId, username: `join-${accountId}`, passwordHash: HASH, now })
      if (options.address !== undefined) {
        await accounts.addEmailAddress({ accountId, address: options.address, now })
        if (options.verified !== false) {
          await accounts.verifyEmailAddress({ accountId, address: options.address, now })
        }
      }
      return accountId
    },
    deleteAccount: (accountId) => accounts.deleteAccount({ accountId, now: new Date() }),
  }
}

describeConformance(joinRequestStoresSuite(memoryJoinRequestFixture))
