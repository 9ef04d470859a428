import { randomBytes as nodeRandomBytes, timingSafeEqual } from 'node:crypto'
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server'
import { type OptionsShape, readOptions } from '../errors/options.js'
import type { SecurityEventSink, SecurityEventSinkErrorHandler } from '../local-accounts/security-events.js'
import { PasskeyCeremonyStart } from './ceremony-start.js'
import { ChallengeKeys, TOKEN_43 } from './challenge-keys.js'
import { invalidPasskeyInput, PasskeyError, PasskeyErrorCodes } from './errors.js'
import { requirePasskeyAccountId, requirePasskeyName } from './input.js'
import { PasskeyEvents } from './passkey-events.js'
import type { PasskeyCeremony, PasskeyChallenge, PasskeyCredential } from './records.js'
import { readAuthenticationResponse, readRegistrationResponse } from './response.js'
import { passkeySettings } from './settings.js'
import type { PasskeyChallengeStore, PasskeyStore } from './store.js'

export interface PasskeyServiceOptions {
  /** The relying party id: your registrable domain or a host under it (`app.example`), checked exactly. */
  readonly rpId: string
  /** What authenticators show as the site's name. */
  readonly rpName: string
  /** Every origin ceremonies may come from (`https://app.example`), compared exactly. */
  readonly origins: readonly string[]
  readonly passkeys: PasskeyStore
  readonly challenges: PasskeyChallengeStore
  /** HMAC key for the challenge, browser-binding and session digests: at least 32 random bytes. */
  readonly pepper: Uint8Array
  /** Challenge lifetime, 30 to 600 seconds; default 300. */
  readonly challengeTtlSeconds?: number
  /** Milliseconds since the epoch; default `Date.now`. */
  readonly clock?: () => number
  readonly randomBytes?: (size: number) => Uint8Array
  readonly events?: SecurityEventSink
  readonly onEventSinkError?: SecurityEventSinkErrorHandler
}

const OPTIONS: OptionsShape<PasskeyServiceOptions> = {
  rpId: { required: true, kind: 'string', code: 'passkey.invalid_config' },
  rpName: { required: true, kind: 'string', code: 'passkey.invalid_config' },
  origins: { required: true, kind: 'array', elements: { kind: 'string' }, code: 'passkey.invalid_config' },
  passkeys: { required: true, kind: 'object', code: 'passkey.invalid_config' },
  challenges: { required: true, kind: 'object', code: 'passkey.invalid_config' },
  pepper: { required: true, kind: 'bytes', code: 'passkey.invalid_config' },
  challengeTtlSeconds: { kind: 'number', code: 'passkey.invalid_config' },
  clock: { kind: 'function', code: 'passkey.invalid_config' },
  randomBytes: { kind: 'function', code: 'passkey.invalid_config' },
  events: { kind: 'function', code: 'passkey.invalid_config' },
  onEventSinkError: { kind: 'function', code: 'passkey.invalid_config' },
}

/** A step-up ceremony: who steps up, from which session, for what. */
export interface PasskeyStepUpBinding {
  readonly accountId: string
  /** A stable value of the caller's session (the same one its step-up credentials are bound to). */
  readonly sessionBinding: string
  readonly purpose: string
}

/** The outcome of a verified assertion. */
export interface PasskeyAssertion {
  readonly accountId: string
  readonly credentialId: string
  readonly ceremony: 'sign_in' | 'step_up'
  /** When the user proved presence and verification (now). */
  readonly authenticatedAt: Date
}

/** Algorithms accepted at registration: EdDSA, ES256, RS256. */
const ALGORITHMS = [-8, -7, -257]

/**
 * WebAuthn ceremonies (`@simplewebauthn/server`): registration of passkeys to a signed-in account,
 * sign-in with discoverable credentials, and step-up. Challenges are server-side, one-use, short-lived
 * and bound to the browser (a cookie, as OAuth transactions are) and, for registration and step-up, to
 * the session. The RP ID and origins are checked exactly; user verification is required; a signature
 * counter that does not move forward suspends the passkey (`passkey.counter_regressed`).
 */
export class PasskeyService {
  readonly rpId: string
  readonly origins: readonly string[]
  readonly challengeTtlSeconds: number
  readonly #rpName: string
  readonly #passkeys: PasskeyStore
  readonly #challenges: PasskeyChallengeStore
  readonly #keys: ChallengeKeys
  readonly #clock: () => number
  readonly #random: (size: number) => Uint8Array
  readonly #events: PasskeyEvents

  constructor(options: PasskeyServiceOptions) {
    readOptions(options, 'PasskeyService', OPTIONS)
    const settings = passkeySettings(options)
    this.rpId = settings.rpId
    this.origins = settings.origins
    this.challengeTtlSeconds = settings.challengeTtlSeconds
    this.#rpName = options.rpName
    this.#passkeys = options.passkeys
    this.#challenges = options.challenges
    this.#keys = new ChallengeKeys(options.pepper)
    this.#clock = options.clock ?? Date.now
    this.#random = options.randomBytes ?? nodeRandomBytes
    this.#events = new PasskeyEvents(options.events, options.onEventSinkError, () => this.#now())
  }

  /** Options to register a new passkey to a signed-in account (ask for a step-up first). */
  async beginRegistration(request: {
    readonly accountId: string
    readonly userName: string
    readonly displayName?: string
    readonly sessionBinding: string
    readonly browserBinding?: string | undefined
  }): Promise<PasskeyCeremonyStart<PublicKeyCredentialCreationOptionsJSON>> {
    const accountId = requirePasskeyAccountId(request?.accountId)
    const userID = new TextEncoder().encode(accountId)
    if (userID.byteLength > 64)
      throw invalidPasskeyInput('accountId must be at most 64 UTF-8 bytes (the user handle)')
    if (typeof request.userName !== 'string' || request.userName === '' || request.userName.length > 64) {
      throw invalidPasskeyInput('userName must be 1-64 characters')
    }
    const existing = await this.#store(() => this.#passkeys.listPasskeys(accountId))
    const challenge = this.#token()
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
    return this.#start(options, challenge, 'registration', request.browserBinding, {
      accountId,
      sessionBinding: request.sessionBinding,
      purpose: null,
    })
  }

  /**
   * Verifies a registration response and stores the passkey. The challenge must be this browser's,
   * this account's and this session's (a mismatch spends it).
   */
  async finishRegistration(request: {
    readonly accountId: string
    readonly sessionBinding: string
    readonly browserBinding: string | undefined
    readonly response: unknown
    readonly name?: string
  }): Promise<PasskeyCredential> {
    const accountId = requirePasskeyAccountId(request?.accountId)
    const name = requirePasskeyName(request.name ?? 'Passkey')
    const { json, challenge } = readRegistrationResponse(request.response)
    const record = await this.#consume(challenge, request.browserBinding, 'registration', {
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
    if ((await this.#store(() => this.#passkeys.addPasskey(passkey))) === 'duplicate') {
      throw new PasskeyError(PasskeyErrorCodes.alreadyRegistered, 'this passkey is already registered')
    }
    this.#events.emit('passkey.registered', { accountId, credentialId: passkey.credentialId })
    return passkey
  }

  /**
   * Options to sign in with a passkey (no `stepUp`: discoverable credentials, any account; usable for
   * conditional UI) or to step up (`stepUp`: the account's passkeys, bound to its session and purpose).
   */
  async beginAuthentication(
    request: { readonly browserBinding?: string | undefined; readonly stepUp?: PasskeyStepUpBinding } = {},
  ): Promise<PasskeyCeremonyStart<PublicKeyCredentialRequestOptionsJSON>> {
    const step = request.stepUp
    const allow =
      step === undefined
        ? []
        : await this.#store(() => this.#passkeys.listPasskeys(requirePasskeyAccountId(step.accountId)))
    const challenge = this.#token()
    const options = await generateAuthenticationOptions({
      rpID: this.rpId,
      challenge: Buffer.from(challenge, 'base64url'),
      timeout: this.challengeTtlSeconds * 1000,
      userVerification: 'required',
      allowCredentials: allow
        .filter((passkey) => passkey.suspendedAt === null)
        .map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports as never })),
    })
    return this.#start(
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
  async finishAuthentication(request: {
    readonly browserBinding: string | undefined
    readonly response: unknown
    readonly stepUp?: PasskeyStepUpBinding
    readonly clientAddress?: string | undefined
  }): Promise<PasskeyAssertion> {
    const { json, challenge, userHandle } = readAuthenticationResponse(request?.response)
    const step = request.stepUp
    const clientAddress = request.clientAddress
    await this.#consume(challenge, request.browserBinding, 'authentication', step ?? null, clientAddress)
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

  /** Removes one of the account's passkeys (ask for a step-up first); false when it has no such passkey. */
  async remove(request: { readonly accountId: string; readonly credentialId: string }): Promise<boolean> {
    const removed = await this.#store(() => this.#passkeys.removePasskey(request))
    if (removed)
      this.#events.emit('passkey.removed', {
        accountId: request.accountId,
        credentialId: request.credentialId,
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

  async #start<
    Options extends PublicKeyCredentialCreationOptionsJSON | PublicKeyCredentialRequestOptionsJSON,
  >(
    options: Options,
    challenge: string,
    ceremony: PasskeyCeremony,
    browserBinding: string | undefined,
    bound: { accountId: string; sessionBinding: string; purpose: string | null } | null,
  ): Promise<PasskeyCeremonyStart<Options>> {
    const reused = typeof browserBinding === 'string' && TOKEN_43.test(browserBinding)
    const binding = reused ? (browserBinding as string) : this.#token()
    const now = this.#now()
    const expiresAt = new Date(now.getTime() + this.challengeTtlSeconds * 1000)
    const record: PasskeyChallenge = {
      challengeDigest: this.#keys.digest('challenge', challenge),
      bindingDigest: this.#keys.digest('binding', binding),
      ceremony,
      accountId: bound === null ? null : requirePasskeyAccountId(bound.accountId),
      sessionDigest:
        bound === null ? null : this.#keys.digest('session', requireSessionBinding(bound.sessionBinding)),
      purpose: bound?.purpose ?? null,
      createdAt: now,
      expiresAt,
    }
    await this.#store(() => this.#challenges.createChallenge(record))
    return new PasskeyCeremonyStart(options, binding, reused, expiresAt)
  }

  async #consume(
    challenge: string,
    browserBinding: string | undefined,
    ceremony: PasskeyCeremony,
    bound: { accountId: string; sessionBinding: string; purpose: string | null } | null,
    clientAddress?: string,
  ): Promise<PasskeyChallenge> {
    const refuse = (): never => {
      this.#events.emit('passkey.failed', {
        reason: 'unknown_challenge',
        accountId: bound?.accountId,
        clientAddress,
      })
      throw new PasskeyError(
        PasskeyErrorCodes.challengeInvalid,
        'the passkey challenge is not valid: start again',
      )
    }
    if (typeof browserBinding !== 'string' || !TOKEN_43.test(browserBinding)) return refuse()
    const key = {
      challengeDigest: this.#keys.digest('challenge', challenge),
      bindingDigest: this.#keys.digest('binding', browserBinding),
    }
    const record = await this.#store(() => this.#challenges.consumeChallenge(key, this.#now()))
    if (record === null || record.ceremony !== ceremony) return refuse()
    // From here the challenge is spent: a mismatch below cannot be retried.
    const expectedSession =
      bound === null ? null : this.#keys.digest('session', requireSessionBinding(bound.sessionBinding))
    const matches =
      record.accountId === (bound?.accountId ?? null) &&
      record.purpose === (bound?.purpose ?? null) &&
      (record.sessionDigest === null || expectedSession === null
        ? record.sessionDigest === expectedSession
        : sameText(record.sessionDigest, expectedSession))
    return matches ? record : refuse()
  }

  #token(): string {
    let bytes: Uint8Array
    try {
      bytes = this.#random(32)
    } catch (cause) {
      throw new PasskeyError(PasskeyErrorCodes.unavailable, 'randomness failed', { cause })
    }
    if (!(bytes instanceof Uint8Array) || bytes.byteLength !== 32) {
      throw new PasskeyError(PasskeyErrorCodes.unavailable, 'randomBytes returned the wrong size')
    }
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url')
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

function requireSessionBinding(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 1024) {
    throw invalidPasskeyInput('sessionBinding must be a non-blank string')
  }
  return value
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8')
  const right = Buffer.from(b, 'utf8')
  return left.length === right.length && timingSafeEqual(left, right)
}
