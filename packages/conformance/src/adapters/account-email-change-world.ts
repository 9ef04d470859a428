import { randomBytes } from 'node:crypto'
import { AccountEmail } from '@portcullis/core/account-email'
import { AccountService, MemoryAccountStore } from '@portcullis/core/accounts'
import { CodeKeyRing } from '@portcullis/core/codes'
import { MemorySessionStore } from '@portcullis/core/local-accounts'
import { type MailMessage, MemoryNotificationSettings } from '@portcullis/core/mail'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import { hybridLocalAccounts, meScenario, ORIGIN } from './account-world.js'
import { mailStores, movableClock, outboxReader } from './mail-world.js'
import type { AdapterScenario } from './scenario.js'

export { movableClock } from './mail-world.js'

/**
 * The email-change world: local accounts (hybrid profile, sign-in by username or verified address),
 * the account routes (password step-up), and the account email routes with email change, sign-in by
 * email code (turned on) and notification settings, all over memory stores that write their mail into
 * one outbox the cases read back.
 */
export async function emailChangeWorld() {
  const clock = movableClock()
  const stores = mailStores()
  const { outbox, codes, rateLimits, protector } = stores
  const sessions = new MemorySessionStore()
  const stepUpStore = new MemoryStepUpStore()
  const accounts = new MemoryAccountStore({ outbox, cascade: [sessions, stepUpStore, codes] })
  const local = await hybridLocalAccounts({
    accounts,
    sessions,
    rateLimits,
    clock,
    signInWith: ['username', 'email'],
  })
  const stepUp = new StepUpService({ store: stepUpStore, clock: () => new Date(clock()) })
  const notificationSettings = new MemoryNotificationSettings()
  const accountEmail = new AccountEmail({
    accounts,
    local,
    codes,
    outbox,
    notificationSettings,
    protector,
    codeKeys: new CodeKeyRing({ version: 1, secret: randomBytes(32) }),
    publicOrigin: ORIGIN,
    rateLimits,
    stepUp,
    signInWith: ['username', 'email'],
    signInCode: { enabled: true },
    clock,
  })
  const scenario: AdapterScenario = {
    ...meScenario(local, 'Email change'),
    accounts: { service: new AccountService({ accounts, local, stepUp }), local },
    accountEmail: { accountEmail, local },
  }
  const { messages, newest } = outboxReader(stores)
  /** The newest message of `kind` and the flow and code its link carries. */
  const lastOf = async (kind: MailMessage['kind']) => {
    const found = await newest((message) => message.kind === kind)
    return found.message === undefined ? undefined : { ...found, message: found.message }
  }
  /** Gives the account a verified primary address (what sign-up and verification would have done). */
  const verifiedAddress = async (accountId: string, address: string) => {
    const now = new Date(clock())
    await accounts.addEmailAddress({ accountId, address, now })
    await accounts.verifyEmailAddress({ accountId, address, now })
  }
  const addresses = async (accountId: string) =>
    (await accounts.listEmailAddresses(accountId)).map(
      (each) => `${each.address}${each.primary ? ' primary' : ''}${each.verified ? ' verified' : ''}`,
    )
  return { scenario, clock, accounts, outbox, messages, lastOf, verifiedAddress, addresses }
}
