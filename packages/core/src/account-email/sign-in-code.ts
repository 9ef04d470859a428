import { normalizeEmailAddress } from '../accounts/email-address.js'
import type { PendingSecondFactor, SecondFactorGate } from '../local-accounts/second-factor.js'
import type { LocalSignIn, SignInOptions } from '../local-accounts/sign-in.js'
import { storeCall } from './errors.js'
import { codeRefusal, consumeFlowCode, emailFlowError } from './flow-errors.js'
import { codeLink, type EmailFlowParts } from './flow-parts.js'

// Sign-in by a code sent to a verified address (off unless the application turns it on). The request
// answers the same for every address, known or not, after the same work: the same limits, one lookup
// and one code written (bound to no account when the address is unknown, so it can never be used);
// only a known address is mailed. The code lives 10 minutes and allows a few wrong guesses. An account
// with a second factor must present it next, as after a password. Email is not an authenticator at
// AAL2 (NIST SP 800-63B-4 §3.1.3.1): this sign-in issues no step-up credential and its sign-in carries
// no `amr` value a freshness or factor check could take for one.

export interface SignInCodeSettings {
  /** Off by default: the application turns sign-in by email code on. */
  readonly enabled: boolean
  /** Minutes a code works. Default 10. */
  readonly codeMinutes: number
  /** Wrong codes allowed per code. Default 5. */
  readonly maxAttempts: number
  /** The page (path) the link opens: it POSTs the flow and the code. */
  readonly path: string
}

/** The per-address and per-client limits of requests that send mail (`EmailFlowLimiter`). */
export interface RequestLimiter {
  attempt(flow: string, address: string, clientAddress: string | undefined): Promise<void>
}

export const DEFAULT_SIGN_IN_CODE_SETTINGS: SignInCodeSettings = Object.freeze({
  enabled: false,
  codeMinutes: 10,
  maxAttempts: 5,
  path: '/sign-in/code',
})

/** The answer to every request, known address or not. */
export interface RequestedSignInCode {
  readonly flowId: string
  readonly expiresAt: Date
}

/** Sign-in by email code (see the module comment). */
export class SignInCode {
  readonly #parts: EmailFlowParts
  readonly #settings: SignInCodeSettings
  readonly #limiter: RequestLimiter
  readonly #secondFactor: SecondFactorGate | undefined

  constructor(
    parts: EmailFlowParts,
    settings: SignInCodeSettings,
    limiter: RequestLimiter,
    secondFactor: SecondFactorGate | undefined,
  ) {
    this.#parts = parts
    this.#settings = settings
    this.#limiter = limiter
    this.#secondFactor = secondFactor
  }

  get enabled(): boolean {
    return this.#settings.enabled
  }

  /**
   * Asks for a sign-in code for `address`. The same answer (a flow handle and its expiry) for a verified
   * address of an active account and for any other address; only the former is mailed.
   */
  async request(request: {
    readonly address: unknown
    readonly clientAddress: string | undefined
  }): Promise<RequestedSignInCode> {
    this.requireEnabled()
    const parts = this.#parts
    const address = normalizeEmailAddress(request.address, parts.emailNormalization)
    const now = parts.clock()
    await this.#limiter.attempt('sign-in-code', address, request.clientAddress)
    const found = await storeCall(() => parts.accounts.findAccountByVerifiedEmail(address))
    const account = found?.status === 'active' ? found : null
    const id = parts.arithmetic.flowId()
    const code = parts.arithmetic.code()
    const { keyVersion, digest } = parts.arithmetic.digest({ id, purpose: 'sign-in', code })
    const expiresAt = new Date(now + this.#settings.codeMinutes * 60_000)
    const accountId = account?.accountId ?? null
    // The message is built, checked and sealed for every address (bound to no account when it is
    // unknown) and written only for a known one: the same links, validation and sealing either way.
    const message = await parts.seal(
      {
        kind: 'sign-in-code',
        to: { address },
        locale: await parts.locale(accountId),
        code,
        link: codeLink(parts.publicOrigin, this.#settings.path, id, code),
        validForMinutes: this.#settings.codeMinutes,
      },
      accountId,
    )
    const outbox = accountId === null ? [] : [message]
    await storeCall(() =>
      parts.codes.issue({
        code: {
          id,
          purpose: 'sign-in',
          accountId,
          address,
          digest,
          keyVersion,
          maxAttempts: this.#settings.maxAttempts,
          createdAt: new Date(now),
          expiresAt,
          payload: null,
        },
        outbox,
      }),
    )
    parts.local.emit('sign_in_code.requested', {
      known: accountId !== null,
      ...(accountId === null ? {} : { accountId }),
      ...(request.clientAddress === undefined ? {} : { clientAddress: request.clientAddress }),
    })
    return Object.freeze({ flowId: id, expiresAt })
  }

  /**
   * Signs in with the code: establishes the transport asked for, or, for an account with a second
   * factor, answers a `PendingSecondFactor` for `LocalAccounts.completeSecondFactor`. Every refusal
   * (wrong, used, expired or exhausted code, an address no longer verified, a disabled account) is
   * `account_email.code_invalid`.
   */
  async complete(request: {
    readonly flowId: unknown
    readonly code: unknown
    readonly options?: SignInOptions
  }): Promise<LocalSignIn | PendingSecondFactor> {
    this.requireEnabled()
    const parts = this.#parts
    const options = request.options ?? {}
    const clientAddress = parts.local.clientAddress(options.request)
    const record = await consumeFlowCode(parts, 'sign-in', request.flowId, request.code).catch(
      (error: unknown) => {
        parts.local.emit('sign_in_code.failed', clientAddress === undefined ? {} : { clientAddress })
        throw error
      },
    )
    const accountId = record.accountId
    if (accountId === null) throw codeRefusal()
    const holder = await storeCall(() => parts.accounts.findAccountByVerifiedEmail(record.address))
    if (holder === null || holder.accountId !== accountId || holder.status !== 'active') {
      throw codeRefusal()
    }
    const transport = options.transport ?? parts.local.transports[0]
    if (transport === undefined) throw codeRefusal()
    const pending = await this.#secondFactor?.begin({
      accountId,
      securityEpoch: holder.securityEpoch,
      transport,
      clientAddress,
    })
    if (pending) {
      parts.local.emit('second_factor.required', {
        accountId,
        ...(clientAddress === undefined ? {} : { clientAddress }),
      })
      return pending
    }
    return parts.local.establishSignIn({
      accountId,
      ...(options.transport === undefined ? {} : { transport: options.transport }),
      ...(options.replacesSessionId === undefined ? {} : { replacesSessionId: options.replacesSessionId }),
      ...(options.request === undefined ? {} : { request: options.request }),
    })
  }

  /** Throws `account_email.sign_in_code_disabled` unless sign-in by email code is turned on. */
  requireEnabled(): void {
    if (!this.#settings.enabled) {
      throw emailFlowError('account_email.sign_in_code_disabled', 'sign-in by email code is not enabled')
    }
  }
}
