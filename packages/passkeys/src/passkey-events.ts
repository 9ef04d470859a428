import {
  emitSecurityEvent,
  type PasskeyFailureReason,
  type SecurityEventFields,
  type SecurityEventSink,
  type SecurityEventSinkErrorHandler,
  type SecurityEventType,
} from '@portcullis/core/local-accounts'
import { PasskeyError, PasskeyErrorCodes } from '@portcullis/core/passkeys'

type Loose<T> = { [K in keyof T]: T[K] | undefined }

/** The passkey service's security events, and its one refusal for a failed verification. */
export class PasskeyEvents {
  readonly #sink: SecurityEventSink | undefined
  readonly #onError: SecurityEventSinkErrorHandler | undefined
  readonly #now: () => Date

  constructor(
    sink: SecurityEventSink | undefined,
    onError: SecurityEventSinkErrorHandler | undefined,
    now: () => Date,
  ) {
    this.#sink = sink
    this.#onError = onError
    this.#now = now
  }

  /** Emits with `undefined` members dropped. */
  emit<Type extends SecurityEventType>(type: Type, fields: Loose<SecurityEventFields[Type]>): void {
    if (this.#sink === undefined) return
    const defined: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) defined[key] = value
    let at: Date
    try {
      at = this.#now()
    } catch {
      at = new Date()
    }
    emitSecurityEvent(this.#sink, { type, at, ...defined } as Parameters<SecurityEventSink>[0], this.#onError)
  }

  /**
   * Emits `passkey.failed` and throws the refusal: one code for every verification failure, and codes of
   * their own for an unknown credential and a suspended one.
   */
  fail(
    reason: PasskeyFailureReason,
    fields: {
      readonly accountId?: string
      readonly credentialId?: string
      readonly clientAddress?: string | undefined
    },
    cause?: unknown,
  ): never {
    this.emit('passkey.failed', { reason, ...fields })
    if (reason === 'credential_suspended') {
      throw new PasskeyError(PasskeyErrorCodes.credentialSuspended, 'the passkey is suspended')
    }
    if (reason === 'unknown_credential') {
      throw new PasskeyError(PasskeyErrorCodes.unknownCredential, 'no passkey has this credential id')
    }
    throw new PasskeyError(PasskeyErrorCodes.verificationFailed, 'the passkey response did not verify', {
      cause,
    })
  }
}
