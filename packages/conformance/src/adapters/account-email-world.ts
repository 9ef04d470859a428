import { randomBytes } from 'node:crypto'
import { AccountEmail } from '@portcullis/core/account-email'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { CodeKeyRing } from '@portcullis/core/codes'
import { PortcullisError } from '@portcullis/core/errors'
import { MemorySessionStore } from '@portcullis/core/local-accounts'
import { type MailMessage, MemoryNotificationSettings } from '@portcullis/core/mail'
import { MemoryPasskeyChallengeStore, MemoryPasskeyStore } from '@portcullis/core/passkeys'
import { MemoryStepUpStore } from '@portcullis/core/step-up'
import { MemoryTotpStore, TotpSecondFactor } from '@portcullis/core/totp'
import { PasskeyService } from '@portcullis/passkeys'
import { TOTP_PERIOD_SECONDS, TotpService } from '@portcullis/totp'
import { hybridLocalAccounts, meScenario, ORIGIN } from './account-world.js'
import { codeFor } from './factor-client.js'
import { mailStores, movableClock, outboxReader } from './mail-world.js'
import type { AdapterScenario } from './scenario.js'

/** A clock the cases move; it starts just after a TOTP step boundary. */
function totpClock() {
  const period = TOTP_PERIOD_SECONDS * 1000
  return movableClock(Math.floor(Date.now() / period) * period + 1000)
}

/** A store with every method failing while `state.down` (a database outage). */
function switchable<Store extends object>(store: Store, state: { down: boolean }): Store {
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) =>
        state.down
          ? Promise.reject(new PortcullisError('conformance.store_down', 'unavailable', 'the store is down'))
          : (value as (...parameters: unknown[]) => unknown).apply(target, args)
    },
  })
}

/**
 * The sign-up, verification and reset world: local accounts (hybrid profile, sign-in by username or
 * verified address, TOTP as the second factor) and the account email routes, over memory stores that
 * write their mail into one outbox the cases read back. The public origin is `https://app.example`.
 */
export async function accountEmailWorld(
  options: { readonly maxAttempts?: number; readonly passkeys?: boolean } = {},
) {
  const clock = totpClock()
  const stores = mailStores()
  const { outbox, codes, rateLimits, protector } = stores
  const codeState = { down: false }
  const sessions = new MemorySessionStore()
  const passkeyStore = new MemoryPasskeyStore()
  const accounts = new MemoryAccountStore({ outbox, cascade: [sessions, codes, passkeyStore] })
  const totp = new TotpService({
    store: new MemoryTotpStore(),
    protector,
    rateLimits,
    recoveryCodePeppers: { active: { version: 'p1', secret: randomBytes(32) } },
    issuer: 'Conformance',
    clock,
  })
  const secondFactor = new TotpSecondFactor({ totp, pending: new MemoryStepUpStore(), clock })
  const local = await hybridLocalAccounts({
    accounts,
    sessions,
    rateLimits,
    clock,
    secondFactor,
    signInWith: ['username', 'email'],
  })
  // With `passkeys`, a reset of an account with a passkey asks an assertion of it (relying party app.example).
  const passkeys =
    options.passkeys === true
      ? new PasskeyService({
          rpId: 'app.example',
          rpName: 'Conformance',
          origins: [ORIGIN],
          passkeys: passkeyStore,
          challenges: new MemoryPasskeyChallengeStore(),
          pepper: randomBytes(32),
        })
      : undefined
  // One database holds the codes and the accounts: an outage takes both from the email flows.
  const accountEmail = new AccountEmail({
    accounts: switchable(accounts, codeState),
    local,
    codes: switchable(codes, codeState),
    outbox,
    notificationSettings: new MemoryNotificationSettings(),
    protector,
    codeKeys: new CodeKeyRing({ version: 1, secret: randomBytes(32) }),
    publicOrigin: ORIGIN,
    rateLimits,
    secondFactor,
    signInWith: ['username', 'email'],
    clock,
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    ...(passkeys === undefined ? {} : { passkeys }),
  })
  const scenario: AdapterScenario = {
    ...meScenario(local, 'Account email'),
    accountEmail: { accountEmail, local },
  }
  const { newest } = outboxReader(stores)
  /** The newest message of `kind` to `address`, with the flow and code its link carries. */
  const lastTo = (kind: MailMessage['kind'], address: string) =>
    newest((message) => message.kind === kind && message.to.address === address)
  /** Turns TOTP on for the account; the code of the current step, for the second step. */
  const enableTotp = async (accountId: string) => {
    const start = await totp.beginEnrollment({ accountId, label: accountId })
    const secret = start.revealSecret()
    await totp.confirmEnrollment({ accountId, code: codeFor(secret, clock()), clientAddress: undefined })
    clock.advance(TOTP_PERIOD_SECONDS * 1000)
    return { secret, code: () => codeFor(secret, clock()) }
  }
  return { scenario, clock, lastTo, enableTotp, codeState, passkeys }
}
