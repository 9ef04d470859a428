import { randomBytes } from 'node:crypto'
import { AccountEmail } from '../../src/account-email/account-email.js'
import type { AccountEmailOptions } from '../../src/account-email/account-email-options.js'
import { MemoryAccountStore } from '../../src/accounts/memory-store.js'
import { CodeKeyRing } from '../../src/codes/code-keys.js'
import { MemoryOneTimeCodeStore } from '../../src/codes/memory-store.js'
import type { LocalAccountsOptions } from '../../src/local-accounts/local-accounts-options.js'
import { MemoryRateLimitStore } from '../../src/local-accounts/rate-limits/memory-rate-limit-store.js'
import { MemorySessionStore } from '../../src/local-accounts/sessions/memory-session-store.js'
import { MemoryNotificationSettings } from '../../src/mail/memory-notification-settings.js'
import { MemoryMailOutbox } from '../../src/mail/memory-outbox.js'
import type { MailMessage } from '../../src/mail/messages.js'
import { openOutboxMessage } from '../../src/mail/outbox-seal.js'
import { AESGCMOAuthTransactionProtector } from '../../src/protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../../src/protection/key.js'
import { localFixture, ORIGIN } from './local-accounts.js'

export const PASSWORD = 'correct horse battery staple'
export const NEW_PASSWORD = 'a brand new passphrase of mine'

/**
 * The flows of `AccountEmail` over memory stores sharing one outbox, with the real protector, code
 * keys and a (cheap) real password hasher. `mail()` reads every pending message back (opened).
 */
export async function accountEmailWorld(
  options: {
    readonly local?: Partial<LocalAccountsOptions>
    readonly email?: Partial<AccountEmailOptions>
  } = {},
) {
  const outbox = new MemoryMailOutbox()
  const codes = new MemoryOneTimeCodeStore({ outbox })
  const sessions = new MemorySessionStore()
  const accounts = new MemoryAccountStore({ outbox, cascade: [codes, sessions] })
  const rateLimits = new MemoryRateLimitStore()
  const fixture = await localFixture({
    accounts,
    sessions,
    rateLimits,
    signInWith: ['username', 'email'],
    ...options.local,
  })
  const protector = new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
  })
  const notificationSettings = new MemoryNotificationSettings()
  const email = new AccountEmail({
    accounts,
    local: fixture.local,
    codes,
    outbox,
    notificationSettings,
    protector,
    codeKeys: new CodeKeyRing({ version: 1, secret: randomBytes(32) }),
    publicOrigin: ORIGIN,
    rateLimits,
    signInWith: ['username', 'email'],
    // Every reading of the clock moves it by a millisecond, so messages are ordered by `createdAt`.
    clock: () => {
      fixture.clock.advance(1)
      return fixture.clock()
    },
    ...options.email,
  })
  const mail = async (): Promise<MailMessage[]> =>
    Promise.all(
      [...outbox.pending()]
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        .map((entry) => openOutboxMessage(protector, entry)),
    )
  /** The newest message of a kind to an address. */
  const lastMail = async <K extends MailMessage['kind']>(kind: K, address: string) => {
    const found = (await mail()).filter((message) => message.kind === kind && message.to.address === address)
    return found.at(-1) as Extract<MailMessage, { kind: K }> | undefined
  }
  /** An account with a verified address, signed up and verified through the flows. */
  const verifiedAccount = async (address: string, password = PASSWORD) => {
    const { flow } = await email.signUp({ email: address, password })
    const message = await lastMail('verification', address)
    if (message === undefined) throw new Error('no verification mail')
    const { accountId } = await email.verifyEmail({ flow, code: message.code })
    return { accountId, flow }
  }
  return {
    ...fixture,
    accounts,
    email,
    outbox,
    codes,
    sessions,
    protector,
    notificationSettings,
    mail,
    lastMail,
    verifiedAccount,
  }
}
