import { randomBytes } from 'node:crypto'
import type { PasskeyStore } from '@portcullis/core/passkeys'
import { T0 } from '../local-accounts/fixture.js'
import { passkey } from '../passkeys/fixture.js'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { type AccountStoreFixture, methodNames, passwordAccount } from './fixture.js'

type Case = ConformanceCase<AccountStoreFixture>

/** Registers a passkey to the account; its credential id. */
async function addPasskey(store: PasskeyStore, accountId: string, suspended = false): Promise<string> {
  const credentialId = randomBytes(32).toString('base64url')
  await store.addPasskey(passkey({ accountId, credentialId, suspendedAt: suspended ? T0 : null }))
  return credentialId
}

/** Passkeys are sign-in methods of the account (checked where the fixture has a `PasskeyStore`). */
export const passkeyMethodCases: readonly Case[] = [
  conformanceCase(
    'accounts.methods.passkey-counts',
    'a usable passkey is listed and counted as a sign-in method: the password can go, then the last passkey cannot',
    async (fixture, check) => {
      const passkeys = fixture.passkeys
      if (passkeys === undefined) return
      const { store } = fixture
      const { accountId } = await passwordAccount(store)
      const credentialId = await addPasskey(passkeys, accountId)
      const names = await methodNames(store, accountId)
      check(names.join() === 'password,passkey', `the methods with a passkey are ${names.join()}`)
      const [, listed] = await store.listSignInMethods(accountId)
      check(
        listed?.kind === 'passkey' && listed.credentialId === credentialId,
        'the listed passkey names another credential',
      )
      const removed = await store.removePassword({ accountId, now: T0 })
      check(
        removed.outcome === 'removed',
        `removing the password beside a passkey answered ${removed.outcome}`,
      )
      const last = await passkeys.removePasskey({ accountId, credentialId })
      check(last === 'final-method', `removing the last passkey answered ${last}`)
      check((await passkeys.findPasskey(credentialId)) !== null, 'the refused removal deleted the passkey')
    },
  ),
  conformanceCase(
    'accounts.methods.suspended-passkey',
    'a suspended passkey is no way to sign in: it does not keep the password removable, and it can always go',
    async (fixture, check) => {
      const passkeys = fixture.passkeys
      if (passkeys === undefined) return
      const { store } = fixture
      const { accountId } = await passwordAccount(store)
      const credentialId = await addPasskey(passkeys, accountId, true)
      const names = await methodNames(store, accountId)
      check(names.join() === 'password', `the methods with a suspended passkey are ${names.join()}`)
      const refused = await store.removePassword({ accountId, now: T0 })
      check(refused.outcome === 'final-method', `removing the password answered ${refused.outcome}`)
      const removed = await passkeys.removePasskey({ accountId, credentialId })
      check(removed === 'removed', `removing the suspended passkey answered ${removed}`)
    },
  ),
  conformanceCase(
    'accounts.methods.passkey-race',
    'removing the password and the only passkey at once: one wins, the account keeps a way to sign in',
    async (fixture, check) => {
      const passkeys = fixture.passkeys
      if (passkeys === undefined) return
      const { store } = fixture
      const { accountId } = await passwordAccount(store)
      const credentialId = await addPasskey(passkeys, accountId)
      const [password, key] = await Promise.all([
        (fixture.peer ?? store).removePassword({ accountId, now: T0 }),
        passkeys.removePasskey({ accountId, credentialId }),
      ])
      const wins = [password.outcome === 'removed', key === 'removed'].filter(Boolean).length
      check(wins === 1, `the racing removals answered ${password.outcome} and ${key}`)
      const left =
        (await store.listSignInMethods(accountId)).length + (await passkeys.listPasskeys(accountId)).length
      check(left >= 1, 'the account was left without a way to sign in')
    },
  ),
]
