import { normalizeEmailAddress } from '../accounts/email-address.js'
import { type EmailAddress, MAX_EMAIL_ADDRESSES_PER_ACCOUNT } from '../accounts/email-requests.js'
import type { AccountSession } from '../accounts/service.js'
import { consumeStepUp } from '../accounts/step-up.js'
import { ConfigurationError } from '../errors/portcullis-error.js'
import type { LocalCredentials } from '../local-accounts/local-credentials.js'
import type { LocalRequestInfo, SessionSignIn, TokenSignIn } from '../local-accounts/sign-in.js'
import type { StepUpService } from '../step-up/service.js'
import { storeCall } from './errors.js'
import type { AccountEmailParts } from './flow-context.js'
import { emailFlowError } from './flow-errors.js'
import { actingFields, defined, issueVerification } from './verification.js'

// The addresses of a signed-in account: list them, add a secondary one (unverified: its verification
// code goes out with its message in one transaction), send a new code to any unverified one, make a
// verified one primary, remove one. Adding, making primary and removing spend an `email-change` step-up
// credential: a verified address can receive password resets, so a stolen session alone must not add
// one. The checks that depend only on the account's own addresses run before the credential is spent,
// so a mistake does not cost one. Each change carries its security notification (`address-added`,
// `address-changed`, `address-removed`, unless the account turned it off) in the store transaction
// that makes it; a change that moves the security epoch ends every other session and keeps the caller
// signed in.

/** The step-up purpose that adding, making primary and removing an address spend. */
export const ADDRESS_STEP_UP_PURPOSE = 'email-change'

/** One address as the account's owner sees it. */
export interface AccountAddressView {
  readonly address: string
  readonly verified: boolean
  readonly primary: boolean
  readonly createdAt: Date
  readonly verifiedAt: Date | null
}

/** An address added: its verification code is on its way (`flow` for `verifyEmail` and resend). */
export interface AddedAddress {
  readonly address: string
  readonly flow: string
}

/** A change that may have moved the security epoch: the caller's fresh sign-in when it did. */
export interface ChangedAddresses {
  readonly address: string
  readonly securityEpoch: number
  readonly session?: SessionSignIn
  readonly tokens?: TokenSignIn
}

interface AddressRequest {
  readonly session: AccountSession
  readonly address: unknown
  readonly request?: LocalRequestInfo
}

interface SteppedUpRequest extends AddressRequest {
  readonly stepUpToken: string
  readonly credentials: LocalCredentials
}

/** The address-management flows of `AccountEmail` (see the module comment). */
export class AccountAddresses {
  readonly #parts: AccountEmailParts
  readonly #stepUp: StepUpService | undefined

  constructor(parts: AccountEmailParts, stepUp: StepUpService | undefined) {
    this.#parts = parts
    this.#stepUp = stepUp
  }

  /** The account's addresses, primary first. */
  async list(accountId: string): Promise<readonly AccountAddressView[]> {
    const addresses = await storeCall(() => this.#parts.accounts.listEmailAddresses(accountId))
    return Object.freeze(addresses.map(view))
  }

  /**
   * Adds an unverified secondary address and mails it a verification code (the code and its message in
   * one transaction); the account's verified primary is told (`address-added`) in the transaction that
   * adds it. Refused before the step-up is spent: an address the account holds, the most addresses.
   */
  async add(request: SteppedUpRequest): Promise<AddedAddress> {
    const parts = this.#parts
    const { accountId } = request.session
    const address = this.#normalize(request.address)
    const held = await this.#held(accountId)
    if (held.some((each) => each.address === address)) throw addressExists()
    if (held.length >= MAX_EMAIL_ADDRESSES_PER_ACCOUNT) throw tooMany()
    const clientAddress = parts.local.clientAddress(request.request)
    await parts.limiter.attempt('verification', address, clientAddress)
    await this.#spend(request)
    const outbox = await storeCall(() =>
      parts.notifier.entries(accountId, { type: 'address-added', address }),
    )
    const now = new Date(parts.clock())
    const added = await storeCall(() => parts.accounts.addEmailAddress({ accountId, address, now, outbox }))
    if (added.outcome === 'exists') throw addressExists()
    if (added.outcome === 'too-many') throw tooMany()
    if (added.outcome === 'not-found') throw accountGone()
    if (added.outcome === 'verified-elsewhere') {
      throw emailFlowError('account_email.address_taken', 'another account verified this address')
    }
    parts.local.emit('email.address_added', defined({ accountId, clientAddress }))
    // A failure here leaves the address unverified on the account: a resend sends its code.
    const flow = await issueVerification(parts, { accountId, address })
    parts.local.emit('email.verification_sent', defined({ accountId, clientAddress }))
    return Object.freeze({ address, flow })
  }

  /**
   * A new verification code for an unverified address of the account (the previous verification code
   * of the account stops working), under the per-address and per-client limits.
   */
  async resend(request: AddressRequest): Promise<{ readonly flow: string }> {
    const parts = this.#parts
    const { accountId } = request.session
    const address = this.#normalize(request.address)
    const held = (await this.#held(accountId)).find((each) => each.address === address)
    if (held === undefined) throw addressNotFound()
    if (held.verified) {
      throw emailFlowError('account_email.address_verified', 'the address is verified already')
    }
    const clientAddress = parts.local.clientAddress(request.request)
    await parts.limiter.attempt('verification', address, clientAddress)
    const flow = await issueVerification(parts, { accountId, address })
    parts.local.emit(
      'email.verification_sent',
      defined({ accountId, clientAddress, ...actingFields(request.request?.impersonator) }),
    )
    return Object.freeze({ flow })
  }

  /**
   * Makes a verified address the primary one (where recovery and notices go): the security epoch moves,
   * and the old and the new primary are told (`address-changed`) in the same transaction.
   */
  async makePrimary(request: SteppedUpRequest): Promise<ChangedAddresses> {
    const parts = this.#parts
    const { accountId } = request.session
    const address = this.#normalize(request.address)
    const addresses = await this.#held(accountId)
    const held = addresses.find((each) => each.address === address)
    if (held === undefined) throw addressNotFound()
    if (!held.verified) {
      throw emailFlowError('account_email.address_unverified', 'only a verified address can be primary')
    }
    if (held.primary) {
      throw emailFlowError('account_email.same_address', 'the address is the primary address already')
    }
    await this.#spend(request)
    const old = addresses.find((each) => each.primary && each.verified)
    const outbox = await storeCall(() =>
      parts.notifier.entries(
        accountId,
        { type: 'address-changed', address },
        { to: [...(old === undefined ? [] : [old.address]), address] },
      ),
    )
    const now = new Date(parts.clock())
    const set = await storeCall(() =>
      parts.accounts.setPrimaryEmailAddress({ accountId, address, now, outbox }),
    )
    if (set.outcome === 'unverified') {
      throw emailFlowError('account_email.address_unverified', 'only a verified address can be primary')
    }
    if (set.outcome === 'not-found') throw addressNotFound()
    const renewed = await this.#epochMoved(request, set.securityEpoch)
    parts.local.emit('email.changed', defined({ accountId, clientAddress: renewed.clientAddress }))
    return Object.freeze({ address, securityEpoch: set.securityEpoch, ...renewed.signIn })
  }

  /**
   * Removes an address: never the primary while others remain, never the account's last way to sign in
   * (its last verified address when the password is reached only through one). The verified primary and
   * the removed address, when verified, are told (`address-removed`) in the same transaction. Removing a
   * verified address moves the security epoch and ends the reset and sign-in codes mailed so far.
   */
  async remove(request: SteppedUpRequest): Promise<ChangedAddresses> {
    const parts = this.#parts
    const { accountId } = request.session
    const address = this.#normalize(request.address)
    const addresses = await this.#held(accountId)
    const held = addresses.find((each) => each.address === address)
    if (held === undefined) throw addressNotFound()
    if (held.primary && addresses.length > 1) throw primaryAddress()
    await this.#spend(request)
    const primary = addresses.find((each) => each.primary && each.verified)
    const to = new Set<string>()
    if (primary !== undefined) to.add(primary.address)
    if (held.verified) to.add(address)
    const outbox =
      to.size === 0
        ? []
        : await storeCall(() =>
            parts.notifier.entries(accountId, { type: 'address-removed', address }, { to: [...to] }),
          )
    const now = new Date(parts.clock())
    const removed = await storeCall(() =>
      parts.accounts.removeEmailAddress({ accountId, address, now, signInWith: parts.signInWith, outbox }),
    )
    if (removed.outcome === 'primary') throw primaryAddress()
    if (removed.outcome === 'not-found') throw addressNotFound()
    if (removed.outcome === 'final-method') {
      throw emailFlowError(
        'account_email.last_sign_in_address',
        'the address is the last way to sign in to the account',
      )
    }
    const clientAddress = parts.local.clientAddress(request.request)
    parts.local.emit('email.address_removed', defined({ accountId, clientAddress }))
    if (removed.securityEpoch === request.session.securityEpoch) {
      return Object.freeze({ address, securityEpoch: removed.securityEpoch })
    }
    // Codes mailed to the removed address (resets, sign-in codes) stop working with it.
    await storeCall(() => parts.codes.revoke({ accountId, purposes: ['password-reset', 'sign-in'] }))
    const renewed = await this.#epochMoved(request, removed.securityEpoch)
    return Object.freeze({ address, securityEpoch: removed.securityEpoch, ...renewed.signIn })
  }

  #normalize(value: unknown): string {
    return normalizeEmailAddress(value, this.#parts.emailNormalization)
  }

  #held(accountId: string): Promise<readonly EmailAddress[]> {
    return storeCall(() => this.#parts.accounts.listEmailAddresses(accountId))
  }

  async #spend(request: SteppedUpRequest): Promise<void> {
    if (this.#stepUp === undefined) {
      throw new ConfigurationError(
        'account_email.invalid_config',
        'managing addresses needs the stepUp option',
        { option: 'AccountEmail.stepUp' },
      )
    }
    const { session } = request
    await consumeStepUp(this.#stepUp, session, request.stepUpToken, ADDRESS_STEP_UP_PURPOSE)
    this.#parts.local.emit('step_up.consumed', {
      accountId: session.accountId,
      purpose: ADDRESS_STEP_UP_PURPOSE,
      sessionHandle: session.sessionHandle,
    })
  }

  async #epochMoved(request: SteppedUpRequest, securityEpoch: number) {
    const { local } = this.#parts
    const { accountId } = request.session
    const clientAddress = local.clientAddress(request.request)
    await local.epochMoved({ accountId, securityEpoch, reason: 'email_changed', clientAddress })
    const signIn = await local.renewSignIn({
      accountId,
      securityEpoch,
      credentials: request.credentials,
      ...(request.request === undefined ? {} : { request: request.request }),
    })
    return { clientAddress, signIn }
  }
}

function view(address: EmailAddress): AccountAddressView {
  return Object.freeze({
    address: address.address,
    verified: address.verified,
    primary: address.primary,
    createdAt: address.createdAt,
    verifiedAt: address.verifiedAt,
  })
}

function addressExists() {
  return emailFlowError('account_email.address_exists', 'the account holds this address already')
}

function addressNotFound() {
  return emailFlowError('account_email.address_not_found', 'the account holds no such address')
}

function primaryAddress() {
  return emailFlowError(
    'account_email.primary_address',
    'the primary address goes last: make another address primary first',
  )
}

function tooMany() {
  return emailFlowError('account_email.too_many_addresses', 'the account holds the most addresses allowed')
}

function accountGone() {
  return emailFlowError('account_email.account_gone', 'no such account')
}
