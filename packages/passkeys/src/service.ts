import { randomBytes as nodeRandomBytes } from 'node:crypto'
import { AccountError, AccountErrorCodes } from '@portcullis/core/accounts'
import { readOptions } from '@portcullis/core/errors'
import type { SecurityNoticeSource } from '@portcullis/core/local-accounts'
import type { OutboxEntry, SecurityChange } from '@portcullis/core/mail'
import type {
  BeginPasskeyAuthentication,
  BeginPasskeyRegistration,
  FinishPasskeyAuthentication,
  FinishPasskeyRegistration,
  PasskeyAssertion,
  PasskeyCeremonies,
  PasskeyCeremonyStart,
  PasskeyCredential,
  PasskeyStore,
} from '@portcullis/core/passkeys'
import {
  invalidPasskeyInput,
  PasskeyError,
  PasskeyErrorCodes,
  requirePasskeyAccountId,
  requirePasskeyName,
} from '@portcullis/core/passkeys'
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server'
import { CeremonyChallenges, sameText } from './ceremony-challenges.js'
import { PasskeyEvents } from './passkey-events.js'
import { readAuthenticationResponse, readRegistrationResponse } from './response.js'
import { PASSKEY_SERVICE_OPTIONS as OPTIONS, type PasskeyServiceOptions } from './service-options.js'
import { passkeySettings } from './settings.js'

export type { PasskeyServiceOptions } from './service-options.js'

/** Algorithms accepted at registration: EdDSA, ES256, RS256. */
const ALGORITHMS = [-8, -7, -257]

/**
 * WebAuthn ceremonies (`@simplewebauthn/server`): registration of passkeys to a signed-in account,
 * sign-in with discoverable credentials, and step-up. Challenges are server-side, one-use, short-lived
 * and bound to the browser (a cookie, as OAuth transactions are) and, for registration and step-up, to
 * the session. The RP ID and origins are checked exactly; user verification is required; a signature
 * counter that does not move forward suspends the passkey (`passkey.counter_regressed`).
 */
export class PasskeyService implements PasskeyCeremonies {
  readonly rpId: string
  readonly origins: readonly string[]
  readonly challengeTtlSeconds: number
  readonly #rpName: string
  readonly #passkeys: PasskeyStore
  readonly #ceremonies: CeremonyChallenges
  readonly #clock: () => number
  readonly #events: PasskeyEvents
  readonly #notices: SecurityNoticeSource | undefined

  constructor(options: PasskeyServiceOptions) {
    readOptions(options, 'PasskeyService', OPTIONS)
    const settings = passkeySettings(options)
    this.rpId = settings.rpId
    this.origins = settings.origins
    this.challengeTtlSeconds = settings.challengeTtlSeconds
    this.#rpName = options.rpName
    this.#passkeys = options.passkeys
    this.#notices = options.securityNotices
    this.#clock = options.clock ?? Date.now
    this.#events = new PasskeyEvents(options.events, options.onEventSinkError, () => this.#now())
    this.#ceremonies = new CeremonyChallenges({
      store: options.challenges,
      pepper: options.pepper,
      ttlSeconds: this.challengeTtlSeconds,
      now: () => this.#now(),
      random: options.randomBytes ?? nodeRandomBytes,
      events: this.#events,
    })
  }

  /** Options to register a new passkey to a signed-in account (ask for a step-up first). */
  async beginRegistration(
    request: BeginPasskeyRegistration,
  ): Promise<PasskeyCeremonyStart<PublicKeyCredentialCreationOptionsJSON>> {
    const accountId = requirePasskeyAccountId(request?.accountId)
    const userID = new TextEncoder().encode(accountId)
    if (userID.byteLength > 64)
      throw invalidPasskeyInput('accountId must be at most 64 UTF-8 bytes (the user handle)')
    if (typeof request.userName !== 'string' || request.userName === '' || request.userName.length > 64) {
      throw invalidPasskeyInput('userName must be 1-64 characters')
    }
    const existing = await this.#store(() => this.#passkeys.listPasskeys(accountId))
    const challenge = this.#ceremonies.token()
    const options = await generateRegistrationOptions({
      rpName: this.#rpName,
      rpID: this.rpId,
      userName: request.userName,
      userID,
      userDisplayName: request.displayName ?? request.userName,
      challenge: Buffer.from(challenge, 'base64url'),
      timeout: this.challengeTtlSeconds * 1000,
      attestationType: 'none',
      excludeCredentials: existing.map((passkey) => ({
        id: passkey.credentialId,
        transports: passkey.transports as never,
      })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      supportedAlgorithmIDs: ALGORITHMS,
    })
    return this.#ceremonies.start(options, challenge, 'registration', request.browserBinding, {
      accountId,
      sessionBinding: request.sessionBinding,
      purpose: null,
    })
  }

  /**
   * Verifies a registration response and stores the passkey. The challenge must be this browser's,
   * this account's and this session's (a mismatch spends it).
   */
  async finishRegistration(request: FinishPasskeyRegistration): Promise<PasskeyCredential> {
    const accountId = requirePasskeyAccountId(request?.accountId)
    const name = requirePasskeyName(request.name ?? 'Passkey')
    const { json, challenge } = readRegistrationResponse(request.response)
    const record = await this.#ceremonies.consume(challenge, request.browserBinding, 'registration', {
      accountId,
      sessionBinding: request.sessionBinding,
      purpose: null,
    })
    let info: Awaited<ReturnType<typeof verifyRegistrationResponse>>['registrationInfo']
    try {
      const verified = await verifyRegistrationResponse({
        response: json,
        expectedChallenge: challenge,
        expectedOrigin: [...this.origins],
        expectedRPID: this.rpId,
        requireUserVerification: true,
        supportedAlgorithmIDs: ALGORITHMS,
      })
      info = verified.verified ? verified.registrationInfo : undefined
    } catch (cause) {
      return this.#events.fail('verification_failed', { accountId }, cause)
    }
    if (info === undefined || !info.userVerified)
      return this.#events.fail('verification_failed', { accountId })
    const passkey: PasskeyCredential = {
      credentialId: info.credential.id,
      accountId: record.accountId as string,
      publicKey: info.credential.publicKey,
      counter: info.credential.counter,
      transports: json.response.transports ?? [],
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      name,
      createdAt: this.#now(),
      lastUsedAt: null,
      suspendedAt: null,
    }
    const notice = await this.#notice(accountId, { type: 'factor-added', factor: 'passkey' })
    if ((await this.#store(() => this.#passkeys.addPasskey(passkey, notice))) === 'duplicate') {
      throw new PasskeyError(PasskeyErrorCodes.alreadyRegistered, 'this passkey is already registered')
    }
    this.#events.emit('passkey.registered', {
      accountId,
      credentialId: passkey.credentialId,
      ...this.#notified(),
    })
    return passkey
  }

  /**
   * Options to sign in with a passkey (no `stepUp`: discoverable credentials, any account; usable for
   * conditional UI) or to step up (`stepUp`: the account's passkeys, bound to its session and purpose).
   */
  async beginAuthentication(
    request: BeginPasskeyAuthentication = {},
  ): Promise<PasskeyCeremonyStart<PublicKeyCredentialRequestOptionsJSON>> {
    const step = request.stepUp
    const allow =
      step === undefined
        ? []
        : await this.#store(() => this.#passkeys.listPasskeys(requirePasskeyAccountId(step.accountId)))
    const challenge = this.#ceremonies.token()
    const options = await generateAuthenticationOptions({
      rpID: this.rpId,
      challenge: Buffer.from(challenge, 'base64url'),
      timeout: this.challengeTtlSeconds * 1000,
      userVerification: 'required',
      allowCredentials: allow
        .filter((passkey) => passkey.suspendedAt === null)
        .map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports as never })),
    })
    return this.#ceremonies.start(
      options,
      challenge,
      'authentication',
      request.browserBinding,
      step === undefined ? null : step,
    )
  }

  /**
   * Verifies an assertion: a sign-in (no `stepUp`; the passkey names the account) or a step-up of the
   * given account, session and purpose. The challenge is spent by any attempt that finds it.
   */
  async finishAuthentication(request: FinishPasskeyAuthentication): Promise<PasskeyAssertion> {
    const { json, challenge, userHandle } = readAuthenticationResponse(request?.response)
    const step = request.stepUp
    const clientAddress = request.clientAddress
    await this.#ceremonies.consume(
      challenge,
      request.browserBinding,
      'authentication',
      step ?? null,
      clientAddress,
    )
    const passkey = await this.#store(() => this.#passkeys.findPasskey(json.id))
    const who = { credentialId: json.id, clientAddress }
    if (passkey === null) return this.#events.fail('unknown_credential', who)
    const known = { ...who, accountId: passkey.accountId }
    if (passkey.suspendedAt !== null) return this.#events.fail('credential_suspended', known)
    if (step !== undefined && step.accountId !== passkey.accountId)
      return this.#events.fail('wrong_account', known)
    if (
      userHandle !== undefined &&
      !sameText(Buffer.from(userHandle, 'base64url').toString('utf8'), passkey.accountId)
    ) {
      return this.#events.fail('wrong_account', known)
    }
    let info: Awaited<ReturnType<typeof verifyAuthenticationResponse>>['authenticationInfo']
    try {
      const verified = await verifyAuthenticationResponse({
        response: json,
        expectedChallenge: challenge,
        expectedOrigin: [...this.origins],
        expectedRPID: this.rpId,
        // The counter is checked below, so a regression suspends the passkey instead of only failing.
        credential: { id: passkey.credentialId, publicKey: new Uint8Array(passkey.publicKey), counter: 0 },
        requireUserVerification: true,
      })
      if (!verified.verified || !verified.authenticationInfo.userVerified) {
        return this.#events.fail('verification_failed', known)
      }
      info = verified.authenticationInfo
    } catch (cause) {
      return this.#events.fail('verification_failed', known, cause)
    }
    await this.#recordUse(passkey, info.newCounter, info.credentialBackedUp, clientAddress)
    const ceremony = step === undefined ? 'sign_in' : 'step_up'
    this.#events.emit('passkey.used', {
      accountId: passkey.accountId,
      credentialId: passkey.credentialId,
      ceremony,
      clientAddress,
    })
    return Object.freeze({
      accountId: passkey.accountId,
      credentialId: passkey.credentialId,
      ceremony,
      authenticatedAt: this.#now(),
    })
  }

  /** The account's passkeys, oldest first. */
  async list(accountId: string): Promise<readonly PasskeyCredential[]> {
    return this.#store(() => this.#passkeys.listPasskeys(requirePasskeyAccountId(accountId)))
  }

  async rename(request: {
    readonly accountId: string
    readonly credentialId: string
    readonly name: string
  }): Promise<boolean> {
    return this.#store(() => this.#passkeys.renamePasskey(request))
  }

  /**
   * Removes one of the account's passkeys (ask for a step-up first); false when it has no such passkey.
   * Refused (`account.final_method`, 409) when it is the account's last way to sign in.
   */
  async remove(request: { readonly accountId: string; readonly credentialId: string }): Promise<boolean> {
    const accountId = requirePasskeyAccountId(request?.accountId)
    const notice = await this.#notice(accountId, { type: 'factor-removed', factor: 'passkey' })
    const outcome = await this.#store(() =>
      notice.outbox === undefined
        ? this.#passkeys.removePasskey(request)
        : this.#passkeys.removePasskey(request, notice),
    )
    if (outcome === 'final-method') {
      throw new AccountError(AccountErrorCodes.finalMethod, 'the last way to sign in cannot be removed')
    }
    const removed = outcome === 'removed'
    if (removed)
      this.#events.emit('passkey.removed', {
        accountId,
        credentialId: request.credentialId,
        ...this.#notified(),
      })
    return removed
  }

  async #recordUse(
    passkey: PasskeyCredential,
    counter: number,
    backedUp: boolean,
    clientAddress: string | undefined,
  ) {
    const stored = passkey.counter
    const forward = counter > stored || (counter === 0 && stored === 0)
    const recorded =
      forward &&
      (await this.#store(() =>
        this.#passkeys.recordPasskeyUse({
          credentialId: passkey.credentialId,
          expectedCounter: stored,
          counter,
          backedUp,
          now: this.#now(),
        }),
      ))
    if (recorded) return
    // Backwards, or another assertion with a counter at least as high got in first: possibly cloned.
    await this.#store(() => this.#passkeys.suspendPasskey(passkey.credentialId, this.#now()))
    this.#events.emit('passkey.counter_regressed', {
      accountId: passkey.accountId,
      credentialId: passkey.credentialId,
      storedCounter: stored,
      presentedCounter: counter,
      clientAddress,
    })
    throw new PasskeyError(
      PasskeyErrorCodes.credentialSuspended,
      'the passkey is suspended: its counter went backwards',
    )
  }

  /** The change's notification for the store to write with it, when `securityNotices` is given. */
  async #notice(
    accountId: string,
    change: SecurityChange,
  ): Promise<{ readonly outbox?: readonly OutboxEntry[] }> {
    const notices = this.#notices
    if (notices === undefined) return {}
    const entries = await this.#store(() => notices.entries(accountId, change))
    return entries.length === 0 ? {} : { outbox: entries }
  }

  /** `notified: true` on the events of changes whose notification the store wrote with them. */
  #notified(): { readonly notified?: true } {
    return this.#notices === undefined ? {} : { notified: true }
  }

  #now(): Date {
    const now = new Date(this.#clock())
    if (Number.isNaN(now.getTime())) throw new PasskeyError(PasskeyErrorCodes.unavailable, 'the clock failed')
    return now
  }

  async #store<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (cause) {
      if (cause instanceof PasskeyError) throw cause
      throw new PasskeyError(PasskeyErrorCodes.unavailable, 'the passkey store failed', { cause })
    }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `PasskeyService { rpId: ${JSON.stringify(this.rpId)}, origins: ${JSON.stringify(this.origins)} }`
  }
}
