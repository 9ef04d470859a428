import { createHash } from 'node:crypto'
import type { CodeKeyRing } from '../codes/code-keys.js'
import { type CodeRandomSource, generateCode, generateFlowId } from '../codes/generate.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import { clientRateLimitKey } from '../local-accounts/rate-limits/rate-limit-key.js'
import type { RateLimitStore } from '../local-accounts/rate-limits/rate-limit-store.js'
import type { SecondFactorGate } from '../local-accounts/second-factor.js'
import type { MailMessage } from '../mail/messages.js'
import type { MailOutboxStore, OutboxEntry } from '../mail/outbox.js'
import { sealOutboxMessage } from '../mail/outbox-seal.js'
import type { PasskeyCeremonies } from '../passkeys/ceremonies.js'
import type { AccountEmailOptions, EmailFlowRateLimit } from './account-email-options.js'
import { AccountEmailError, AccountEmailErrorCodes, storeCall } from './errors.js'
import type { CodeArithmetic, EmailFlowParts } from './flow-parts.js'
import { SecurityNotifier } from './notifications.js'

// What sign-up, verification and reset share beyond `EmailFlowParts`: the outbox for messages no
// stored change carries, the per-address and per-client limits, the second factor, the pages links
// point to, and the settings with their defaults.

/** The per-address and per-client limits of the requests that send mail. */
export class EmailFlowLimiter {
  readonly #store: RateLimitStore
  readonly #perAddress: EmailFlowRateLimit
  readonly #perClient: EmailFlowRateLimit
  readonly #clock: () => number

  constructor(store: RateLimitStore, options: AccountEmailOptions['limits'], clock: () => number) {
    this.#store = store
    this.#perAddress = options?.perAddress ?? { limit: 5, windowSeconds: 3600 }
    this.#perClient = options?.perClient ?? { limit: 30, windowSeconds: 3600 }
    this.#clock = clock
  }

  /**
   * Counts one request for the address (a digest of it: the store never holds addresses) and one for
   * the client (an unknown client counts under one shared key). Known and unknown addresses count the
   * same. Throws `account_email.rate_limited` with `retryAfterSeconds`.
   */
  async attempt(flow: string, address: string, clientAddress: string | undefined): Promise<void> {
    const now = new Date(this.#clock())
    const digest = createHash('sha256').update(address, 'utf8').digest('hex')
    const client = clientRateLimitKey(clientAddress, { ipv6PrefixLength: 64 })
    const decisions = await storeCall(() =>
      Promise.all([
        this.#store.consume({ key: `account_email.address:${digest}`, ...this.#perAddress, now }),
        this.#store.consume({ key: `account_email.${flow}.client:${client}`, ...this.#perClient, now }),
      ]),
    )
    let resetAt = 0
    for (const decision of decisions) {
      if (!decision.allowed) resetAt = Math.max(resetAt, decision.resetAt.getTime())
    }
    if (resetAt === 0) return
    const retryAfterSeconds = Math.max(1, Math.ceil((resetAt - now.getTime()) / 1000))
    throw new AccountEmailError(AccountEmailErrorCodes.rateLimited, 'too many email requests', {
      retryAfterSeconds,
      detail: 'Too many requests: try again later',
    })
  }
}

/** The shared parts of every email flow, with the settings of sign-up, verification and reset. */
export interface AccountEmailParts extends EmailFlowParts {
  readonly outbox: MailOutboxStore
  readonly limiter: EmailFlowLimiter
  readonly secondFactor: SecondFactorGate | undefined
  /** The passkey ceremonies a reset of an account with a passkey asks an assertion of. */
  readonly passkeys: PasskeyCeremonies | undefined
  readonly random: CodeRandomSource | undefined
  readonly pages: {
    readonly verifyEmail: string
    readonly resetPassword: string
    readonly signIn: string
    readonly signUp: string
  }
  readonly reset: {
    readonly unknownAddress: 'notify' | 'silent'
    readonly signIn: 'never' | 'after-second-factor'
    readonly codeMinutes: number
  }
  readonly verificationMinutes: number
  readonly maxAttempts: number
}

function arithmetic(keys: CodeKeyRing, length: number, random: CodeRandomSource | undefined): CodeArithmetic {
  const source = random === undefined ? {} : { randomBytes: random }
  return {
    code: () => generateCode({ length, ...source }),
    flowId: () => generateFlowId(random),
    digest: (request) => keys.issueDigest(request),
    candidates: (request) => keys.candidates(request),
  }
}

function originOf(value: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigurationError('account_email.invalid_config', 'publicOrigin must be an absolute URL', {
      option: 'AccountEmail.publicOrigin',
    })
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== value.replace(/\/$/, '')) {
    throw new ConfigurationError(
      'account_email.invalid_config',
      'publicOrigin must be an http(s) origin without path, query or fragment',
      { option: 'AccountEmail.publicOrigin' },
    )
  }
  return url.origin
}

/** Reads the options into the parts every flow uses (defaults applied). */
export function accountEmailParts(options: AccountEmailOptions): AccountEmailParts {
  const clock = options.clock ?? Date.now
  const protector = options.protector
  const locale = options.locale ?? (() => 'en')
  const notifier =
    options.notifier ??
    new SecurityNotifier({
      accounts: options.accounts,
      notificationSettings: options.notificationSettings,
      outbox: options.outbox,
      protector,
      clock,
      ...(options.reviewLink === undefined ? {} : { reviewLink: options.reviewLink }),
      locale: (accountId) => locale(accountId),
    })
  return {
    accounts: options.accounts,
    local: options.local,
    codes: options.codes,
    protector,
    notifier,
    arithmetic: arithmetic(options.codeKeys, options.codeLength ?? 6, options.randomBytes),
    publicOrigin: originOf(options.publicOrigin),
    signInWith: Object.freeze([...(options.signInWith ?? ['username'])]),
    emailNormalization: options.emailNormalization ?? {},
    clock,
    seal: (message: MailMessage, accountId: string | null): Promise<OutboxEntry> =>
      sealOutboxMessage(protector, message, { now: new Date(clock()), accountId }),
    locale,
    ...(options.addressVerified === undefined ? {} : { addressVerified: options.addressVerified }),
    outbox: options.outbox,
    limiter: new EmailFlowLimiter(options.rateLimits, options.limits, clock),
    secondFactor: options.secondFactor,
    passkeys: options.passkeys,
    random: options.randomBytes,
    pages: {
      verifyEmail: options.pages?.verifyEmail ?? '/verify-email',
      resetPassword: options.pages?.resetPassword ?? '/reset-password',
      signIn: options.pages?.signIn ?? '/sign-in',
      signUp: options.pages?.signUp ?? '/sign-up',
    },
    reset: {
      unknownAddress: options.passwordReset?.unknownAddress ?? 'notify',
      signIn: options.passwordReset?.signIn ?? 'never',
      codeMinutes: options.passwordReset?.codeMinutes ?? 60,
    },
    verificationMinutes: options.verificationCodeMinutes ?? 1440,
    maxAttempts: options.maxAttempts ?? 5,
  }
}
