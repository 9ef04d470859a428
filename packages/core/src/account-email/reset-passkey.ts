import type { OneTimeCodeRecord } from '../codes/port.js'
import type { PasskeyStepUpBinding } from '../passkeys/ceremonies.js'
import type { PasskeyCeremonyStart } from '../passkeys/ceremony-start.js'
import { readFields, readFlowAndCode } from './bodies.js'
import { invalidEmailFlowInput, storeCall } from './errors.js'
import type { AccountEmailParts } from './flow-context.js'
import { openPayload } from './flow-parts.js'
import {
  consumeResetCode,
  finishReset,
  pendingInvalid,
  pendingReset,
  RESET_PURPOSE,
  type ResetCompleted,
  type ResetOptions,
  refusedReset,
} from './reset-parts.js'
import { defined } from './verification.js'

// The passkey step of a password reset. When the account has a passkey, the right email code does not
// reset by itself: the new password's hash waits, sealed, in a one-use pending reset, and a WebAuthn
// assertion challenge is started bound to that pending reset (its account, a binding naming the
// pending reset and the purpose `password-reset`), with user verification required. Completing spends
// the pending reset first, then verifies the assertion against that challenge: a replayed or another
// browser's challenge, another account's passkey or a forged assertion is refused and the reset must
// start again from a new email code.

const PASSKEY_AMR = Object.freeze(['hwk', 'user'])

/** The code was right and the account has a passkey: its assertion is next (`completeResetPasskey`). */
export interface ResetPendingPasskey {
  readonly outcome: 'passkey'
  /**
   * The started assertion: `options` for `navigator.credentials.get()` (only the account's passkeys)
   * and the browser binding for the passkey ceremony cookie (`revealBrowserBinding()`).
   */
  readonly ceremony: PasskeyCeremonyStart
  /**
   * The token that carries the reset to the passkey step, for the one response that hands it to the
   * client (only its digest is stored; `JSON.stringify` and `util.inspect` of this object never show it).
   */
  revealResetToken(): string
}

/** The challenge binding of the pending reset `pendingId` of `accountId`. */
function resetBinding(accountId: string, pendingId: string): PasskeyStepUpBinding {
  return { accountId, sessionBinding: `password-reset:${pendingId}`, purpose: RESET_PURPOSE }
}

/** Parks the new password's hash in a pending reset and starts the assertion bound to it. */
export async function beginResetPasskey(
  parts: AccountEmailParts,
  started: {
    readonly record: OneTimeCodeRecord
    readonly passwordHash: string
    readonly securityEpoch: number
    readonly options: ResetOptions
    readonly clientAddress: string | undefined
  },
): Promise<ResetPendingPasskey> {
  const passkeys = parts.passkeys
  const accountId = started.record.accountId
  if (passkeys === undefined || accountId === null) throw pendingInvalid()
  const pending = await pendingReset(parts, started.record, {
    passwordHash: started.passwordHash,
    securityEpoch: String(started.securityEpoch),
  })
  const ceremony = await passkeys.beginAuthentication({
    browserBinding: started.options.browserBinding,
    stepUp: resetBinding(accountId, pending.id),
  })
  parts.local.emit(
    'password_reset.second_factor_required',
    defined({ accountId, clientAddress: started.clientAddress }),
  )
  const token = pending.token
  return Object.freeze({
    outcome: 'passkey' as const,
    ceremony,
    revealResetToken: () => token,
    toJSON: () => ({ outcome: 'passkey', ceremony, resetToken: '[redacted]' }),
    [Symbol.for('nodejs.util.inspect.custom')]: () => 'ResetPendingPasskey { resetToken: [redacted] }',
  })
}

/**
 * The passkey step of a reset: `{ resetToken, response }` (the browser's `AuthenticationResponseJSON`)
 * from the browser that began it (`options.browserBinding`). Spends the pending reset, then verifies the
 * assertion against the challenge bound to it; the password is written only when both hold and the
 * account's security epoch has not moved since the email code was checked. Throws
 * `account_email.reset_pending_invalid` for an unknown, spent or expired reset, `passkey.*` for an
 * assertion that does not verify (the reset is spent either way).
 */
export async function completeResetPasskey(
  parts: AccountEmailParts,
  body: unknown,
  options: ResetOptions = {},
): Promise<ResetCompleted> {
  const clientAddress = parts.local.clientAddress(options.request)
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidEmailFlowInput('the body must be an object')
  }
  const { response, ...rest } = body as { readonly response?: unknown }
  if (typeof response !== 'object' || response === null || Array.isArray(response)) {
    throw invalidEmailFlowInput('response must be the assertion (AuthenticationResponseJSON)')
  }
  const fields = readFields(rest, ['resetToken'])
  const passkeys = parts.passkeys
  if (passkeys === undefined) throw pendingInvalid()
  const [flow = '', code = ''] = fields.resetToken.split('.')
  const record = await consumeResetCode(parts, readFlowAndCode({ flow, code }).flow, code)
  if ('failed' in record || record.accountId === null || record.payload === null) {
    refusedReset(parts, 'pending_invalid', clientAddress)
    throw pendingInvalid()
  }
  const accountId = record.accountId
  try {
    const assertion = await passkeys.finishAuthentication({
      browserBinding: options.browserBinding,
      response,
      stepUp: resetBinding(accountId, record.id),
      clientAddress,
    })
    if (assertion.accountId !== accountId) throw pendingInvalid()
  } catch (error) {
    refusedReset(parts, 'passkey_invalid', clientAddress, accountId)
    throw error
  }
  let sealed: Readonly<Record<string, string>> | undefined
  try {
    sealed = await openPayload(
      parts.protector,
      { id: record.id, purpose: RESET_PURPOSE, accountId },
      record.payload,
    )
  } catch {
    sealed = undefined
  }
  const account = await storeCall(() => parts.accounts.getAccount(accountId))
  const passwordHash = sealed?.passwordHash
  if (
    passwordHash === undefined ||
    account === null ||
    String(account.securityEpoch) !== sealed?.securityEpoch
  ) {
    refusedReset(parts, 'pending_invalid', clientAddress, accountId)
    throw pendingInvalid()
  }
  return finishReset(parts, {
    accountId,
    passwordHash,
    secondFactor: true,
    options,
    clientAddress,
    amr: PASSKEY_AMR,
  })
}
