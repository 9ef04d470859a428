import { randomBytes } from 'node:crypto'
import type { AccountStore } from '@portcullis/core/accounts'
import { at, T0 } from '../local-accounts/fixture.js'
import { passwordAccount } from './fixture.js'

/** A fresh normalized address (the local part keeps its case). */
export function emailAddress(label = 'Person'): string {
  return `${label}.${randomBytes(6).toString('hex')}@mail.conformance.example`
}

export const epochOf = async (store: AccountStore, accountId: string) =>
  (await store.getAccount(accountId))?.securityEpoch

/** An account with one verified (primary) address. */
export async function verifiedAccount(store: AccountStore, address = emailAddress()) {
  const account = await passwordAccount(store)
  await store.addEmailAddress({ accountId: account.accountId, address, now: T0 })
  const verified = await store.verifyEmailAddress({ accountId: account.accountId, address, now: at(1) })
  if (verified.outcome !== 'verified') throw new Error(`setup: verifying answered ${verified.outcome}`)
  return { ...account, address }
}
