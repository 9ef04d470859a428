import { randomBytes } from 'node:crypto'
import { DEFAULT_EMAIL_CHANGE_SETTINGS, EmailChange } from '../../src/account-email/email-change.js'
import { EmailFlowLimiter } from '../../src/account-email/flow-context.js'
import { codeArithmetic, type EmailFlowParts } from '../../src/account-email/flow-parts.js'
import { SecurityNotifier } from '../../src/account-email/notifications.js'
import {
  DEFAULT_SIGN_IN_CODE_SETTINGS,
  SignInCode,
  type SignInCodeSettings,
} from '../../src/account-email/sign-in-code.js'
import { MemoryAccountStore } from '../../src/accounts/memory-store.js'
import type { AccountSession } from '../../src/accounts/service.js'
import { CodeKeyRing } from '../../src/codes/code-keys.js'
import { MemoryOneTimeCodeStore } from '../../src/codes/memory-store.js'
import type { LocalAccountsOptions } from '../../src/local-accounts/local-accounts-options.js'
import { MemoryRateLimitStore } from '../../src/local-accounts/rate-limits/memory-rate-limit-store.js'
import type { SessionSignIn } from '../../src/local-accounts/sign-in.js'
import { MemoryNotificationSettings } from '../../src/mail/memory-notification-settings.js'
import { MemoryMailOutbox } from '../../src/mail/memory-outbox.js'
import type { MailMessage } from '../../src/mail/messages.js'
import { openOutboxMessage, sealOutboxMessage } from '../../src/mail/outbox-seal.js'
import { AESGCMOAuthTransactionProtector } from '../../src/protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../../src/protection/key.js'
import { MemoryStepUpStore } from '../../src/step-up/memory-store.js'
import { StepUpService } from '../../src/step-up/service.js'
import { localFixture, ORIGIN } from './local-accounts.js'

export const PASSWORD = 'correct horse battery staple'

/**
 * Email flows over memory stores that share one outbox: an account `alice` with the verified primary
 * address `alice@example.com`, signed in with a session; the outbox can be read back as messages.
 */
export async function emailWorld(
  options: {
    readonly local?: Partial<LocalAccountsOptions>
    readonly signInCode?: Partial<SignInCodeSettings>
  } = {},
) {
  const outbox = new MemoryMailOutbox()
  const codes = new MemoryOneTimeCodeStore({ outbox })
  const stepUpStore = new MemoryStepUpStore()
  const accounts = new MemoryAccountStore({ outbox, cascade: [stepUpStore, codes] })
  const rateLimits = new MemoryRateLimitStore()
  const fixture = await localFixture({
    accounts,
    rateLimits,
    signInWith: ['username', 'email'],
    ...options.local,
  })
  const clock = fixture.clock
  const protector = new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
  })
  const notificationSettings = new MemoryNotificationSettings()
  const notifier = new SecurityNotifier({
    accounts,
    notificationSettings,
    outbox,
    protector,
    clock,
  })
  const parts: EmailFlowParts = {
    accounts,
    local: fixture.local,
    codes,
    protector,
    notifier,
    arithmetic: codeArithmetic(new CodeKeyRing({ version: 1, secret: randomBytes(32) })),
    publicOrigin: ORIGIN,
    signInWith: ['username', 'email'],
    emailNormalization: {},
    clock,
    seal: (message, accountId) =>
      sealOutboxMessage(protector, message, { now: new Date(clock()), accountId }),
    locale: () => 'en',
  }
  const stepUp = new StepUpService({ store: stepUpStore, clock: () => new Date(clock()) })
  const change = new EmailChange(parts, stepUp, DEFAULT_EMAIL_CHANGE_SETTINGS)
  const signInCode = new SignInCode(
    parts,
    { ...DEFAULT_SIGN_IN_CODE_SETTINGS, enabled: true, ...options.signInCode },
    new EmailFlowLimiter(rateLimits, undefined, clock),
    options.local?.secondFactor,
  )
  const { accountId } = await fixture.local.register({ username: 'alice', password: PASSWORD })
  const now = new Date(clock())
  await accounts.addEmailAddress({ accountId, address: 'alice@example.com', now })
  await accounts.verifyEmailAddress({ accountId, address: 'alice@example.com', now })
  const signIn = (await fixture.local.login(
    { username: 'alice', password: PASSWORD },
    { transport: 'session' },
  )) as SessionSignIn
  // With a second factor configured the password sign-in stops at its second step: no session then.
  const session: AccountSession = {
    accountId,
    securityEpoch: 1,
    sessionHandle: signIn.transport === 'session' ? signIn.handle : 'no-session',
  }
  const credentialsOf = (sessionSignIn: SessionSignIn, securityEpoch = 1) => ({
    sessionHandle: sessionSignIn.handle,
    securityEpoch,
  })
  /** Every message in the outbox, oldest first. */
  const messages = async (): Promise<MailMessage[]> =>
    Promise.all(outbox.pending().map((row) => openOutboxMessage(protector, row)))
  /** The newest message of `kind` and the flow and code its link carries. */
  const lastOf = async <K extends MailMessage['kind']>(kind: K) => {
    const all = (await messages()).filter((message) => message.kind === kind)
    const message = all.at(-1) as Extract<MailMessage, { kind: K }> | undefined
    if (message === undefined) throw new Error(`no ${kind} message`)
    const link = 'link' in message ? message.link : 'undoLink' in message ? message.undoLink : undefined
    const url = link === undefined ? undefined : new URL(link)
    return {
      message,
      flowId: url?.searchParams.get('flow') ?? '',
      code: new URLSearchParams(url?.hash.slice(1) ?? '').get('code') ?? '',
    }
  }
  const stepUpToken = async (purpose = 'email-change', forSession = session) =>
    (
      await stepUp.issue({
        accountId: forSession.accountId,
        purpose,
        securityEpoch: forSession.securityEpoch,
        sessionBinding: forSession.sessionHandle,
      })
    ).reveal()
  return {
    ...fixture,
    accounts,
    outbox,
    codes,
    protector,
    notifier,
    notificationSettings,
    parts,
    stepUp,
    change,
    signInCode,
    accountId,
    session,
    signIn,
    credentialsOf,
    messages,
    lastOf,
    stepUpToken,
  }
}
