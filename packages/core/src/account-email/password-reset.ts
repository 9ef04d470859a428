import type { SetPasswordRequest } from '../accounts/requests.js'
import { generateCode, UNAMBIGUOUS_ALPHABET } from '../codes/generate.js'
import type { CodePurpose, OneTimeCodeRecord } from '../codes/port.js'
import type { LocalTransport } from '../local-accounts/local-accounts-options.js'
import { validatePassword } from '../local-accounts/passwords/password.js'
import type { PendingSecondFactor } from '../local-accounts/second-factor.js'
import type { LocalRequestInfo, LocalSignIn } from '../local-accounts/sign-in.js'
import type { OutboxEntry } from '../mail/outbox.js'
import { readAddress, readFields, readFlowAndCode } from './bodies.js'
import { AccountEmailError, AccountEmailErrorCodes, invalidCode, storeCall } from './errors.js'
import type { AccountEmailParts } from './flow-context.js'
import { codeLink, openPayload, sealPayload } from './flow-parts.js'
import { defined } from './verification.js'

// Password reset by email. Anyone may ask (`requestPasswordReset`): a known address gets a code and a
// link to the reset page, an unknown one an `unknown-account-reset` message (or nothing), and both
// answer 202 with a flow handle after the same limits and the same store calls. Completing
// (`resetPassword`) consumes the code; an account with TOTP must then present its code
// (`completeResetSecondFactor`) before the new password is written, and an account with a passkey is
// refused (an email alone never takes over a protected account). The new password is screened, written
// with a move of the security epoch and the `password-reset` notification in one transaction; every
// other live reset code of the account is revoked; the person is signed in only when a second factor
// was verified and the settings allow it.

const PURPOSE: CodePurpose = 'password-reset'
const PENDING_MINUTES = 10
const PENDING_CODE_LENGTH = 32

export interface ResetOptions {
  /** The transport to sign in with afterwards, when the settings sign in (`hybrid` needs one). */
  readonly transport?: LocalTransport
  /** The session id the request carries, replaced by a new session (no fixation). */
  readonly replacesSessionId?: string | undefined
  readonly request?: LocalRequestInfo
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

/** Asks for a reset code for `{ email }`: the same answer for every address. */
export async function requestPasswordReset(
  parts: AccountEmailParts,
  body: unknown,
  clientAddress: string | undefined,
): Promise<{ readonly flow: string }> {
  const fields = readFields(body, ['email'])
  const address = readAddress(fields.email, parts.emailNormalization)
  await parts.limiter.attempt('reset', address, clientAddress)
  const account = await storeCall(() => parts.accounts.findAccountByVerifiedEmail(address))
  const accountId = account?.accountId ?? null
  const id = parts.arithmetic.flowId()
  const code = parts.arithmetic.code()
  const now = new Date(parts.clock())
  const locale = await parts.locale(accountId)
  // Both messages are built, checked and sealed for every address, known or not, and the one that
  // does not apply is dropped: the same links, the same validation and the same sealing either way.
  const resetMessage = await parts.seal(
    {
      kind: 'password-reset',
      to: { address },
      locale,
      code,
      link: codeLink(parts.publicOrigin, parts.pages.resetPassword, id, code),
      validForMinutes: parts.reset.codeMinutes,
    },
    accountId,
  )
  const unknownMessage = await parts.seal(
    {
      kind: 'unknown-account-reset',
      to: { address },
      locale,
      signUpLink: new URL(parts.pages.signUp, parts.publicOrigin).toString(),
    },
    null,
  )
  const entries: OutboxEntry[] =
    accountId !== null ? [resetMessage] : parts.reset.unknownAddress === 'notify' ? [unknownMessage] : []
  // An unknown address gets a record too (bound to no account, its code sent to nobody): the same
  // store work, and nothing it could ever unlock.
  await storeCall(() =>
    parts.codes.issue({
      code: {
        id,
        purpose: PURPOSE,
        accountId,
        address,
        ...parts.arithmetic.digest({ id, purpose: PURPOSE, code }),
        maxAttempts: parts.maxAttempts,
        createdAt: now,
        expiresAt: new Date(now.getTime() + parts.reset.codeMinutes * 60_000),
        payload: null,
      },
      outbox: entries,
    }),
  )
  parts.local.emit(
    'password_reset.requested',
    defined({ accountId: accountId ?? undefined, known: accountId !== null, clientAddress }),
  )
  return { flow: id }
}

async function consume(
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

function refused(
  parts: AccountEmailParts,
  reason: string,
  clientAddress: string | undefined,
  accountId?: string,
) {
  parts.local.emit('password_reset.failed', defined({ reason, accountId, clientAddress }))
}

/**
 * Completes a reset with `{ flow, code, password }`. Throws `account_email.invalid_code` (one answer
 * for a wrong, used, expired or unknown code), `local.invalid_password` / `local.password_screened`
 * (the code is not spent by a password the rules refuse), `account_email.second_factor_required` for
 * an account with a passkey.
 */
export async function resetPassword(
  parts: AccountEmailParts,
  body: unknown,
  options: ResetOptions = {},
): Promise<ResetCompleted | ResetPendingSecondFactor> {
  const { local } = parts
  const clientAddress = local.clientAddress(options.request)
  const fields = readFields(body, ['flow', 'code', 'password'])
  const password = validatePassword(fields.password, local.passwordRules)
  await local.screenPassword(password, { purpose: 'reset' })
  const { flow, code } = readFlowAndCode(fields)
  const record = await consume(parts, flow, code)
  if ('failed' in record || record.accountId === null) {
    refused(parts, 'failed' in record ? record.failed : 'invalid_code', clientAddress)
    throw invalidCode()
  }
  const accountId = record.accountId
  const current = await storeCall(() => parts.accounts.findPassword({ accountId }))
  if (current === null || current.status !== 'active') {
    refused(parts, current === null ? 'no_password' : 'inactive_account', clientAddress, accountId)
    throw invalidCode()
  }
  const methods = await storeCall(() => parts.accounts.listSignInMethods(accountId))
  if (methods.some((method) => method.kind === 'passkey')) {
    refused(parts, 'passkey_required', clientAddress, accountId)
    throw new AccountEmailError(AccountEmailErrorCodes.secondFactorRequired, 'the account has a passkey', {
      detail: 'This account has a passkey: sign in with it, then change the password',
    })
  }
  const passwordHash = await local.hasher.hash(password)
  const transport = transportOf(parts, options)
  const pending = await storeCall(async () =>
    parts.secondFactor === undefined
      ? null
      : parts.secondFactor.begin({
          accountId,
          securityEpoch: current.securityEpoch,
          transport,
          clientAddress,
        }),
  )
  if (pending === null) {
    return finish(parts, { accountId, passwordHash, secondFactor: false, options, clientAddress })
  }
  const resetToken = await pendingReset(parts, record, passwordHash)
  local.emit('password_reset.second_factor_required', defined({ accountId, clientAddress }))
  return Object.freeze({ outcome: 'second-factor' as const, pending, revealResetToken: () => resetToken })
}

/** Stores the reset that waits for its second factor: a short-lived code holding the sealed hash. */
async function pendingReset(parts: AccountEmailParts, record: OneTimeCodeRecord, passwordHash: string) {
  const id = parts.arithmetic.flowId()
  const code = generateCode({ length: PENDING_CODE_LENGTH, alphabet: UNAMBIGUOUS_ALPHABET })
  const accountId = record.accountId as string
  const now = new Date(parts.clock())
  const payload = await sealPayload(parts.protector, { id, purpose: PURPOSE, accountId }, { passwordHash })
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
  return `${id}.${code}`
}

/**
 * The second step of a reset of an account with TOTP: `{ resetToken, pendingToken, code }` or
 * `{ resetToken, pendingToken, recoveryCode }`. The TOTP code is checked first (a typo keeps the
 * pending sign-in for another try); then the reset token is spent and must name the same account, at
 * the same security epoch. Throws `account_email.reset_pending_invalid` when it does not.
 */
export async function completeResetSecondFactor(
  parts: AccountEmailParts,
  body: unknown,
  options: ResetOptions = {},
): Promise<ResetCompleted> {
  const { local } = parts
  const clientAddress = local.clientAddress(options.request)
  const fields = readFields(body, ['resetToken', 'pendingToken'], ['code', 'recoveryCode'])
  const gate = parts.secondFactor
  const [flow = '', code = ''] = fields.resetToken.split('.')
  if (gate === undefined) throw pendingInvalid()
  const done = await gate.complete(
    {
      pendingToken: fields.pendingToken,
      ...(fields.code === undefined ? {} : { code: fields.code }),
      ...(fields.recoveryCode === undefined ? {} : { recoveryCode: fields.recoveryCode }),
    },
    { clientAddress, transport: transportOf(parts, options) },
  )
  const record = await consume(parts, readFlowAndCode({ flow, code }).flow, code)
  if ('failed' in record || record.accountId !== done.accountId || record.payload === null) {
    refused(parts, 'pending_invalid', clientAddress, done.accountId)
    throw pendingInvalid()
  }
  const accountId = done.accountId
  let passwordHash: string | undefined
  try {
    const payload = await openPayload(
      parts.protector,
      { id: record.id, purpose: PURPOSE, accountId },
      record.payload,
    )
    passwordHash = payload.passwordHash
  } catch {
    passwordHash = undefined
  }
  const account = await storeCall(() => parts.accounts.getAccount(accountId))
  if (passwordHash === undefined || account === null || account.securityEpoch !== done.securityEpoch) {
    refused(parts, 'pending_invalid', clientAddress, accountId)
    throw pendingInvalid()
  }
  return finish(parts, { accountId, passwordHash, secondFactor: true, options, clientAddress, amr: done.amr })
}

function pendingInvalid(): AccountEmailError {
  return new AccountEmailError(AccountEmailErrorCodes.resetPending, 'the reset is not pending', {
    detail: 'The reset is not pending any more: ask for a new code',
  })
}

function transportOf(parts: AccountEmailParts, options: ResetOptions): LocalTransport {
  return options.transport ?? parts.local.transports[0] ?? 'session'
}

async function finish(
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
    refused(parts, 'no_password', clientAddress, accountId)
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
