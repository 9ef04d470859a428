import type { SetPasswordRequest } from '../accounts/requests.js'
import { generateCode, UNAMBIGUOUS_ALPHABET } from '../codes/generate.js'
import type { CodePurpose, OneTimeCodeRecord } from '../codes/port.js'
import type { LocalTransport } from '../local-accounts/local-accounts-options.js'
import type { PendingSecondFactor } from '../local-accounts/second-factor.js'
import type { LocalRequestInfo, LocalSignIn } from '../local-accounts/sign-in.js'
import type { OutboxEntry } from '../mail/outbox.js'
import { AccountEmailError, AccountEmailErrorCodes, invalidCode, storeCall } from './errors.js'
import type { AccountEmailParts } from './flow-context.js'
import { sealPayload } from './flow-parts.js'
import { defined } from './verification.js'

// What every step of a password reset shares: the code's purpose, the consumption of a reset code,
// the pending reset that waits for a second factor (TOTP or a passkey), and the last step that writes
// the password, moves the security epoch and notifies.

export const RESET_PURPOSE: CodePurpose = 'password-reset'
const PURPOSE = RESET_PURPOSE
const PENDING_MINUTES = 10
const PENDING_CODE_LENGTH = 32

export interface ResetOptions {
  /** The transport to sign in with afterwards, when the settings sign in (`hybrid` needs one). */
  readonly transport?: LocalTransport
  /** The session id the request carries, replaced by a new session (no fixation). */
  readonly replacesSessionId?: string | undefined
  readonly request?: LocalRequestInfo
  /** The passkey ceremony cookie the request carries (a reset of an account with a passkey). */
  readonly browserBinding?: string | undefined
}

/** The reset is done: the password is set, every session and token of the account has ended. */
export interface ResetCompleted {
  readonly outcome: 'reset'
  readonly accountId: string
  /** Present when the settings sign in after a verified second factor. */
  readonly signIn?: LocalSignIn
}

/** The code was right and the account has TOTP: its code is next (`completeResetSecondFactor`). */
export interface ResetPendingSecondFactor {
  readonly outcome: 'second-factor'
  readonly pending: PendingSecondFactor
  /**
   * The token that carries the reset to the second step, for the one response that hands it to the
   * client (only its digest is stored; `JSON.stringify` and `util.inspect` of this object never show it).
   */
  revealResetToken(): string
}

export async function consumeResetCode(
  parts: AccountEmailParts,
  flow: string,
  code: string,
): Promise<OneTimeCodeRecord | { readonly failed: string }> {
  if (flow === '') return { failed: 'invalid_code' }
  const outcome = await storeCall(() =>
    parts.codes.consume({
      id: flow,
      purpose: PURPOSE,
      candidates: parts.arithmetic.candidates({ id: flow, purpose: PURPOSE, code }),
      now: new Date(parts.clock()),
    }),
  )
  if (outcome.outcome === 'consumed') return outcome.code
  return {
    failed:
      outcome.outcome === 'exhausted'
        ? 'exhausted'
        : outcome.outcome === 'expired'
          ? 'expired'
          : 'invalid_code',
  }
}

export function refusedReset(
  parts: AccountEmailParts,
  reason: string,
  clientAddress: string | undefined,
  accountId?: string,
) {
  parts.local.emit('password_reset.failed', defined({ reason, accountId, clientAddress }))
}

/** Stores the reset that waits for its second factor: a short-lived code holding the sealed hash. */
export async function pendingReset(
  parts: AccountEmailParts,
  record: OneTimeCodeRecord,
  sealed: Readonly<Record<string, string>>,
): Promise<{ readonly id: string; readonly token: string }> {
  const id = parts.arithmetic.flowId()
  const code = generateCode({ length: PENDING_CODE_LENGTH, alphabet: UNAMBIGUOUS_ALPHABET })
  const accountId = record.accountId as string
  const now = new Date(parts.clock())
  const payload = await sealPayload(parts.protector, { id, purpose: PURPOSE, accountId }, sealed)
  await storeCall(() =>
    parts.codes.issue({
      code: {
        id,
        purpose: PURPOSE,
        accountId,
        address: record.address,
        ...parts.arithmetic.digest({ id, purpose: PURPOSE, code }),
        maxAttempts: 1,
        createdAt: now,
        expiresAt: new Date(now.getTime() + PENDING_MINUTES * 60_000),
        payload,
      },
    }),
  )
  return { id, token: `${id}.${code}` }
}

export function pendingInvalid(): AccountEmailError {
  return new AccountEmailError(AccountEmailErrorCodes.resetPending, 'the reset is not pending', {
    detail: 'The reset is not pending any more: ask for a new code',
  })
}

export function transportOf(parts: AccountEmailParts, options: ResetOptions): LocalTransport {
  return options.transport ?? parts.local.transports[0] ?? 'session'
}

export async function finishReset(
  parts: AccountEmailParts,
  done: {
    readonly accountId: string
    readonly passwordHash: string
    readonly secondFactor: boolean
    readonly options: ResetOptions
    readonly clientAddress: string | undefined
    readonly amr?: readonly string[]
  },
): Promise<ResetCompleted> {
  const { local } = parts
  const { accountId, clientAddress } = done
  const outbox = await storeCall(() => parts.notifier.entries(accountId, { type: 'password-reset' }))
  const request: SetPasswordRequest & { readonly outbox: readonly OutboxEntry[] } = {
    accountId,
    passwordHash: done.passwordHash,
    now: new Date(parts.clock()),
    bumpEpoch: true,
    outbox,
  }
  const updated = await storeCall(() => parts.accounts.setPassword(request))
  if (updated === null) {
    refusedReset(parts, 'no_password', clientAddress, accountId)
    throw invalidCode()
  }
  await local.epochMoved({
    accountId,
    securityEpoch: updated.securityEpoch,
    reason: 'password_reset',
    clientAddress,
  })
  local.emit('password.changed', defined({ accountId, clientAddress }))
  await parts.codes.revoke({ accountId, purposes: [PURPOSE] }).catch(() => 0)
  const signIn =
    done.secondFactor && parts.reset.signIn === 'after-second-factor'
      ? await local.establishSignIn({
          accountId,
          transport: transportOf(parts, done.options),
          replacesSessionId: done.options.replacesSessionId,
          ...(done.options.request === undefined ? {} : { request: done.options.request }),
          amr: done.amr ?? ['otp'],
        })
      : undefined
  local.emit(
    'password_reset.completed',
    defined({ accountId, signedIn: signIn !== undefined, clientAddress }),
  )
  return signIn === undefined ? { outcome: 'reset', accountId } : { outcome: 'reset', accountId, signIn }
}
