import { MemoryOneTimeCodeStore } from '@portcullis/core/codes'
import { MemoryMailOutbox } from '@portcullis/core/mail'
import { accounts, transactions } from '@portcullis/core/oauth'
import { type EnvelopeInventory, MemoryEnvelopeInventory } from '@portcullis/core/protection'
import { MemoryTotpStore } from '@portcullis/core/totp'
import { describe, expect, it } from 'vitest'
import { describeConformance } from '../bindings/vitest.js'
import { runSuite } from '../suite/suite.js'
import type { EnvelopeInventoryWorld } from './inventory-fixture.js'
import { envelopeInventorySuite } from './inventory-suite.js'

type Flaw = 'none' | 'counts-expired' | 'forgets-totp' | 'forgets-mail'

/** The memory stores and their inventory; a flaw makes the inventory lie in one way. */
function memoryWorld({ protector, clock }: EnvelopeInventoryWorld, flaw: Flaw) {
  const oauthAccounts = new accounts.MemoryOAuthAccountStore({
    provider: 'conformance',
    clientId: 'client-1',
    protector,
  })
  const oauthTransactions = new transactions.MemoryOAuthTransactionStore({ protector, clock })
  const totp = new MemoryTotpStore()
  const mailOutbox = new MemoryMailOutbox()
  const oneTimeCodes = new MemoryOneTimeCodeStore()
  const stores = [
    oauthAccounts,
    oauthTransactions,
    ...(flaw === 'forgets-totp' ? [] : [totp]),
    ...(flaw === 'forgets-mail' ? [] : [mailOutbox]),
    oneTimeCodes,
  ]
  const honest = new MemoryEnvelopeInventory({ stores, clock })
  const inventory: EnvelopeInventory =
    flaw === 'counts-expired' ? new MemoryEnvelopeInventory({ stores, clock: () => new Date(0) }) : honest
  return { inventory, oauthAccounts, oauthTransactions, totp, mailOutbox, oneTimeCodes }
}

// The reference memory stores pass the suite.
describeConformance(envelopeInventorySuite((world) => memoryWorld(world, 'none')))

describe('the envelope inventory suite fails a lying inventory', () => {
  it.each([
    [
      'counts-expired',
      [
        'envelope-inventory.counts-every-holding',
        'envelope-inventory.expired-transactions-skipped',
        'envelope-inventory.rotation-drain',
        'envelope-inventory.mail-and-codes',
      ],
    ],
    [
      'forgets-totp',
      [
        'envelope-inventory.counts-every-holding',
        'envelope-inventory.expired-transactions-skipped',
        'envelope-inventory.completed-and-discarded',
        'envelope-inventory.rotation-drain',
      ],
    ],
    ['forgets-mail', ['envelope-inventory.mail-and-codes']],
  ] as const)('%s fails exactly the cases that see it', async (flaw, caseIds) => {
    const results = await runSuite(envelopeInventorySuite((world) => memoryWorld(world, flaw)))
    const failed = results.filter((result) => !result.passed).map((result) => result.id)
    expect(failed).toEqual(caseIds)
  })
})
