import { validatePassword } from '../local-accounts/passwords/password.js'
import type { OutboxEntry } from '../mail/outbox.js'
import { readAddress, readFields, readFlowAndCode } from './bodies.js'
import { AccountEmailError, AccountEmailErrorCodes, invalidCode, storeCall } from './errors.js'
import type { AccountEmailParts } from './flow-context.js'
import { codeLink, openPayload } from './flow-parts.js'
import {
  consumeResetCode,
  finishReset,
  pendingInvalid,
  pendingReset,
  RESET_PURPOSE,
  type ResetCompleted,
  type ResetOptions,
  type ResetPendingSecondFactor,
  refusedReset,
  transportOf,
} from './reset-parts.js'
import { beginResetPasskey, type ResetPendingPasskey } from './reset-passkey.js'
import { defined } from './verification.js'

export type { ResetCompleted, ResetOptions, ResetPendingSecondFactor } from './reset-parts.js'
export type { ResetPendingPasskey } from './reset-passkey.js'

// Password reset by email. Anyone may ask (`requestPasswordReset`): a known address gets a code and a
// link to the reset page, an unknown one an `unknown-account-reset` message (or nothing), and both
// answer 202 with a flow handle after the same limits and the same store calls. Completing
// (`resetPassword`) consumes the code; an account with TOTP must then present its code
// (`completeResetSecondFactor`) and an account with a passkey an assertion of one (`reset-passkey.ts`)
// before the new password is written (an email alone never takes over a protected account). The new password is screened, written
// with a move of the security epoch and the `password-reset` notification in one transaction; every
// other live reset code of the account is revoked; the person is signed in only when a second factor
// was verified and the settings allow it.

const PURPOSE = RESET_PURPOSE

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
): Promise<ResetCompleted | ResetPendingSecondFactor | ResetPendingPasskey> {
  const { local } = parts
  const clientAddress = local.clientAddress(options.request)
  const fields = readFields(body, ['flow', 'code', 'password'])
  const password = validatePassword(fields.password, local.passwordRules)
  await local.screenPassword(password, { purpose: 'reset' })
  const { flow, code } = readFlowAndCode(fields)
  const record = await consumeResetCode(parts, flow, code)
  if ('failed' in record || record.accountId === null) {
    refusedReset(parts, 'failed' in record ? record.failed : 'invalid_code', clientAddress)
    throw invalidCode()
  }
  const accountId = record.accountId
  const current = await storeCall(() => parts.accounts.findPassword({ accountId }))
  if (current === null || current.status !== 'active') {
    refusedReset(parts, current === null ? 'no_password' : 'inactive_account', clientAddress, accountId)
    throw invalidCode()
  }
  const methods = await storeCall(() => parts.accounts.listSignInMethods(accountId))
  if (methods.some((method) => method.kind === 'passkey') && parts.passkeys !== undefined) {
    const passwordHash = await local.hasher.hash(password)
    const securityEpoch = current.securityEpoch
    return beginResetPasskey(parts, { record, passwordHash, securityEpoch, options, clientAddress })
  }
  if (methods.some((method) => method.kind === 'passkey')) {
    refusedReset(parts, 'passkey_required', clientAddress, accountId)
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
    return finishReset(parts, { accountId, passwordHash, secondFactor: false, options, clientAddress })
  }
  const { token: resetToken } = await pendingReset(parts, record, {
    passwordHash,
    securityEpoch: String(current.securityEpoch),
  })
  local.emit('password_reset.second_factor_required', defined({ accountId, clientAddress }))
  return Object.freeze({ outcome: 'second-factor' as const, pending, revealResetToken: () => resetToken })
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
  const record = await consumeResetCode(parts, readFlowAndCode({ flow, code }).flow, code)
  if ('failed' in record || record.accountId !== done.accountId || record.payload === null) {
    refusedReset(parts, 'pending_invalid', clientAddress, done.accountId)
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
    refusedReset(parts, 'pending_invalid', clientAddress, accountId)
    throw pendingInvalid()
  }
  return finishReset(parts, {
    accountId,
    passwordHash,
    secondFactor: true,
    options,
    clientAddress,
    amr: done.amr,
  })
}
