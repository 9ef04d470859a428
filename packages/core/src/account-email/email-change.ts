import { normalizeEmailAddress } from '../accounts/email-address.js'
import type { AccountSession } from '../accounts/service.js'
import { consumeStepUp } from '../accounts/step-up.js'
import type { OneTimeCodeRecord } from '../codes/port.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import type { LocalCredentials } from '../local-accounts/local-credentials.js'
import type { LocalRequestInfo, SessionSignIn, TokenSignIn } from '../local-accounts/sign-in.js'
import type { StepUpService } from '../step-up/service.js'
import { tellAddressVerified } from './address-verified.js'
import { storeCall } from './errors.js'
import { codeRefusal, consumeFlowCode, emailFlowError } from './flow-errors.js'
import { codeLink, type EmailFlowParts, openPayload, sealPayload } from './flow-parts.js'

// Changing the account's primary address. The request needs a step-up (`email-change`) and changes
// nothing: the new address waits, sealed in the code record, until its code comes back, so a typo
// takes nothing over. The old address is told at once, with an undo link that works for 7 days and
// needs no session (the person whose account was taken over has none). Completing verifies the new
// address and makes it primary in one store transaction, with the `address-changed` notification to the
// old address in the same transaction; the security epoch moves, so every other session ends.

/** The step-up purpose an email change consumes. */
export const EMAIL_CHANGE_STEP_UP_PURPOSE = 'email-change'

export interface EmailChangeSettings {
  /** Minutes the code sent to the new address works. Default 60. */
  readonly codeMinutes: number
  /** Days the undo link sent to the old address works. Default 7. */
  readonly undoDays: number
  /** Wrong codes allowed per code. Default 5. */
  readonly maxAttempts: number
  /** The page (path) that confirms a new address: it POSTs the flow and the code. */
  readonly confirmPath: string
  /** The page (path) that undoes a change: it POSTs the flow and the code. */
  readonly undoPath: string
}

export const DEFAULT_EMAIL_CHANGE_SETTINGS: EmailChangeSettings = Object.freeze({
  codeMinutes: 60,
  undoDays: 7,
  maxAttempts: 5,
  confirmPath: '/email/change/confirm',
  undoPath: '/email/change/undo',
})

/** What a requested change answers: the flow handle the confirmation step names. */
export interface RequestedEmailChange {
  readonly flowId: string
  readonly expiresAt: Date
}

/** A completed change: the caller's fresh sign-in (the security epoch moved). */
export interface CompletedEmailChange {
  readonly address: string
  readonly securityEpoch: number
  readonly session?: SessionSignIn
  readonly tokens?: TokenSignIn
}

/** Email change and its undo (see the module comment). */
export class EmailChange {
  readonly #parts: EmailFlowParts
  readonly #stepUp: StepUpService | undefined
  readonly #settings: EmailChangeSettings

  constructor(parts: EmailFlowParts, stepUp: StepUpService | undefined, settings: EmailChangeSettings) {
    this.#parts = parts
    this.#stepUp = stepUp
    this.#settings = settings
  }

  /**
   * Asks to move the account's primary address to `newAddress`. Consumes an `email-change` step-up
   * credential (after the address was checked, so a malformed one does not spend it). Writes two codes,
   * each with its message in the same transaction: the undo notice to the old address first, then the
   * code to the new one. The account is not changed.
   */
  async request(request: {
    readonly session: AccountSession
    readonly stepUpToken: string
    readonly newAddress: unknown
    readonly request?: LocalRequestInfo
  }): Promise<RequestedEmailChange> {
    const { session } = request
    const parts = this.#parts
    const newAddress = normalizeEmailAddress(request.newAddress, parts.emailNormalization)
    const addresses = await storeCall(() => parts.accounts.listEmailAddresses(session.accountId))
    const primary = addresses.find((address) => address.primary && address.verified)
    if (primary?.address === newAddress) {
      throw emailFlowError('account_email.same_address', 'the address is the primary address already')
    }
    if (this.#stepUp === undefined) {
      throw new ConfigurationError('account_email.invalid_config', 'email change needs the stepUp option', {
        option: 'AccountEmail.stepUp',
      })
    }
    await consumeStepUp(this.#stepUp, session, request.stepUpToken, EMAIL_CHANGE_STEP_UP_PURPOSE)
    parts.local.emit('step_up.consumed', {
      accountId: session.accountId,
      purpose: EMAIL_CHANGE_STEP_UP_PURPOSE,
      sessionHandle: session.sessionHandle,
    })
    const now = parts.clock()
    const locale = await parts.locale(session.accountId)
    const data = { newAddress, oldAddress: primary?.address ?? '' }
    const accountId = session.accountId
    if (primary !== undefined) {
      const undo = this.#fresh('email-change-undo')
      const undoDays = this.#settings.undoDays
      const notice = await parts.seal(
        {
          kind: 'email-change-notice',
          to: { address: primary.address },
          locale,
          newAddress,
          undoLink: codeLink(parts.publicOrigin, this.#settings.undoPath, undo.record.id, undo.code),
          undoValidForDays: undoDays,
        },
        accountId,
      )
      const payload = await sealPayload(parts.protector, { ...undo.bound, accountId }, data)
      const issue = {
        code: {
          ...undo.record,
          accountId,
          address: primary.address,
          maxAttempts: this.#settings.maxAttempts,
          createdAt: new Date(now),
          expiresAt: new Date(now + undoDays * 86_400_000),
          payload,
        },
        // An undo link never dies of a later request: the change after it must not silence the owner.
        supersede: false,
        outbox: [notice],
      }
      await storeCall(() => parts.codes.issue(issue))
    }
    const change = this.#fresh('email-change')
    const expiresAt = new Date(now + this.#settings.codeMinutes * 60_000)
    const verification = await parts.seal(
      {
        kind: 'email-change-verification',
        to: { address: newAddress },
        locale,
        code: change.code,
        link: codeLink(parts.publicOrigin, this.#settings.confirmPath, change.record.id, change.code),
        validForMinutes: this.#settings.codeMinutes,
      },
      accountId,
    )
    const payload = await sealPayload(parts.protector, { ...change.bound, accountId }, data)
    const issue = {
      code: {
        ...change.record,
        accountId,
        address: newAddress,
        maxAttempts: this.#settings.maxAttempts,
        createdAt: new Date(now),
        expiresAt,
        payload,
      },
      outbox: [verification],
    }
    await storeCall(() => parts.codes.issue(issue))
    const clientAddress = parts.local.clientAddress(request.request)
    parts.local.emit('email.change_requested', {
      accountId: session.accountId,
      ...(clientAddress === undefined ? {} : { clientAddress }),
    })
    return Object.freeze({ flowId: change.record.id, expiresAt })
  }

  /**
   * Completes a change with the code sent to the new address, by the signed-in account that asked for
   * it (a code presented by another account's session is spent and refused). The new address becomes
   * verified and primary in one transaction with the notification to the old address; the epoch moves.
   */
  async complete(request: {
    readonly session: AccountSession
    readonly flowId: unknown
    readonly code: unknown
    readonly credentials: LocalCredentials
    readonly request?: LocalRequestInfo
  }): Promise<CompletedEmailChange> {
    const parts = this.#parts
    const { session } = request
    const record = await this.#consume('email-change', request.flowId, request.code)
    if (record.accountId !== session.accountId) throw codeRefusal()
    const data = await this.#open(record, session.accountId)
    const newAddress = data.newAddress ?? ''
    const now = new Date(parts.clock())
    const added = await storeCall(() =>
      parts.accounts.addEmailAddress({
        accountId: session.accountId,
        address: newAddress,
        now,
      }),
    )
    if (added.outcome === 'verified-elsewhere') throw addressTaken()
    if (added.outcome === 'too-many') {
      throw emailFlowError('account_email.too_many_addresses', 'the account holds the most addresses allowed')
    }
    if (added.outcome === 'not-found') throw emailFlowError('account_email.account_gone', 'no such account')
    const old = data.oldAddress === undefined || data.oldAddress === '' ? [] : [data.oldAddress]
    const outbox = await parts.notifier.entries(
      session.accountId,
      { type: 'address-changed', address: newAddress },
      { to: old },
    )
    // An address this step added and could not verify goes again: nothing of the change is left.
    const forget = async () => {
      if (added.outcome !== 'added') return
      await parts.accounts
        .removeEmailAddress({
          accountId: session.accountId,
          address: newAddress,
          now,
          signInWith: parts.signInWith,
        })
        .catch(() => {})
    }
    let verified: Awaited<ReturnType<typeof parts.accounts.verifyEmailAddress>>
    try {
      verified = await storeCall(() =>
        parts.accounts.verifyEmailAddress({
          accountId: session.accountId,
          address: newAddress,
          now,
          makePrimary: true,
          outbox,
        }),
      )
    } catch (error) {
      await forget()
      throw error
    }
    if (verified.outcome !== 'verified') {
      await forget()
      throw verified.outcome === 'taken'
        ? addressTaken()
        : emailFlowError('account_email.account_gone', 'no such account')
    }
    // Codes mailed to the old address (resets, sign-in codes) stop working with it.
    await storeCall(() =>
      parts.codes.revoke({ accountId: session.accountId, purposes: ['password-reset', 'sign-in'] }),
    )
    const clientAddress = parts.local.clientAddress(request.request)
    await parts.local.epochMoved({
      accountId: session.accountId,
      securityEpoch: verified.securityEpoch,
      reason: 'email_changed',
      clientAddress,
    })
    const renewed = await parts.local.renewSignIn({
      accountId: session.accountId,
      securityEpoch: verified.securityEpoch,
      credentials: request.credentials,
      ...(request.request === undefined ? {} : { request: request.request }),
    })
    parts.local.emit('email.changed', {
      accountId: session.accountId,
      ...(clientAddress === undefined ? {} : { clientAddress }),
    })
    await tellAddressVerified(parts, { accountId: session.accountId, address: newAddress }, clientAddress)
    return Object.freeze({ address: newAddress, securityEpoch: verified.securityEpoch, ...renewed })
  }

  /**
   * Undoes a change with the code of the undo link sent to the old address (no session needed): the old
   * address is the verified primary again, the new one is removed, any pending change is cancelled, the
   * security epoch moves (every session ends) and the old address is told. Works once.
   */
  async undo(request: {
    readonly flowId: unknown
    readonly code: unknown
    readonly request?: LocalRequestInfo
  }): Promise<{ readonly address: string }> {
    const parts = this.#parts
    const record = await this.#consume('email-change-undo', request.flowId, request.code)
    const accountId = record.accountId
    if (accountId === null) throw codeRefusal()
    const data = await this.#open(record, accountId)
    const oldAddress = data.oldAddress ?? record.address
    const newAddress = data.newAddress ?? ''
    await storeCall(() =>
      parts.codes.revoke({ accountId, purposes: ['email-change', 'password-reset', 'sign-in'] }),
    )
    const now = new Date(parts.clock())
    const added = await storeCall(() =>
      parts.accounts.addEmailAddress({ accountId, address: oldAddress, now }),
    )
    if (added.outcome === 'not-found') throw emailFlowError('account_email.account_gone', 'no such account')
    if (added.outcome === 'verified-elsewhere') throw addressTaken()
    const outbox = await parts.notifier.entries(
      accountId,
      { type: 'address-changed', address: oldAddress },
      { to: [oldAddress] },
    )
    const restored = await storeCall(() =>
      parts.accounts.verifyEmailAddress({
        accountId,
        address: oldAddress,
        now,
        makePrimary: true,
        outbox,
      }),
    )
    if (restored.outcome === 'taken') throw addressTaken()
    if (restored.outcome === 'not-found')
      throw emailFlowError('account_email.account_gone', 'no such account')
    if (newAddress !== '' && newAddress !== oldAddress) {
      await storeCall(() =>
        parts.accounts.removeEmailAddress({
          accountId,
          address: newAddress,
          now,
          signInWith: parts.signInWith,
        }),
      )
    }
    const epoch = await storeCall(() => parts.accounts.bumpSecurityEpoch({ accountId, now }))
    const clientAddress = parts.local.clientAddress(request.request)
    if (epoch !== null) {
      await parts.local.epochMoved({
        accountId,
        securityEpoch: epoch,
        reason: 'email_change_undone',
        clientAddress,
      })
    }
    parts.local.emit('email.change_undone', {
      accountId,
      ...(clientAddress === undefined ? {} : { clientAddress }),
    })
    return Object.freeze({ address: oldAddress })
  }

  #fresh(purpose: 'email-change' | 'email-change-undo') {
    const { arithmetic } = this.#parts
    const id = arithmetic.flowId()
    const code = arithmetic.code()
    const { keyVersion, digest } = arithmetic.digest({ id, purpose, code })
    return { code, bound: { id, purpose }, record: { id, purpose, digest, keyVersion } }
  }

  async #consume(purpose: 'email-change' | 'email-change-undo', flowId: unknown, code: unknown) {
    return consumeFlowCode(this.#parts, purpose, flowId, code)
  }

  async #open(record: OneTimeCodeRecord, accountId: string): Promise<Readonly<Record<string, string>>> {
    if (record.payload === null) throw codeRefusal()
    try {
      return await openPayload(
        this.#parts.protector,
        { id: record.id, purpose: record.purpose, accountId },
        record.payload,
      )
    } catch {
      throw codeRefusal()
    }
  }
}

function addressTaken() {
  return emailFlowError('account_email.address_taken', 'another account verified this address')
}
