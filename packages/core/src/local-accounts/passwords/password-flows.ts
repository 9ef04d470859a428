import { randomUUID } from 'node:crypto'
import { AccountError, AccountErrorCodes } from '../../accounts/errors.js'
import type { AccountStore } from '../../accounts/port.js'
import type { PasswordRecord } from '../../accounts/records.js'
import { isPortcullisError } from '../../errors/portcullis-error.js'
import { invalidCredentials, LocalAuthError } from '../auth-errors.js'
import { digestOpaqueToken } from '../opaque-token.js'
import type { LoginThrottle } from '../rate-limits/login-throttle.js'
import { readCredentials, readPasswordChange, readRegistration } from '../request-bodies.js'
import { defined, type LocalRuntime } from '../runtime.js'
import { invalid } from '../store-input.js'
import type { DummyHash } from './dummy-hash.js'
import { type PasswordHasher, type PasswordRules, validatePassword } from './password.js'
import { type PasswordScreen, screenNewPassword } from './password-screen.js'
import { noticesOf, type SecurityNoticeSource } from './security-notices.js'
import { findByIdentifier, readIdentifier } from './sign-in-identifier.js'
import { normalizeUsername } from './username.js'

/** What the password flows need from `LocalAccounts`. */
export interface PasswordFlowParts {
  readonly accounts: AccountStore
  readonly hasher: PasswordHasher
  readonly dummy: DummyHash
  readonly throttle: LoginThrottle
  readonly rules: PasswordRules
  /** Screens every new password after `rules` and before hashing. */
  readonly screen: PasswordScreen
  readonly runtime: LocalRuntime
  /** The notifier whose entries a password change writes in its own transaction. */
  readonly notices?: SecurityNoticeSource | undefined
}

const OPAQUE = /^[A-Za-z0-9_-]{22,512}$/

/** A presented password at sign-in: bounded and well-formed, but any length from 1 (rules may have changed). */
function presentedPassword(password: string, rules: PasswordRules): string {
  return validatePassword(password, {
    minLength: 1,
    ...(rules.maxBytes === undefined ? {} : { maxBytes: rules.maxBytes }),
  })
}

/**
 * Checks a username (or, under `signInWith`, a verified address) and password: body shape and input
 * rules first (a 400 writes nothing), then the lookups the identifier allows (all of them, whatever the
 * first finds), then the per-account and per-address limits (before any hashing), then one password
 * verification whether or not the account exists (the dummy hash), so unknown and known usernames and
 * addresses cost the same and fail the same. An unverified address finds nobody.
 * A verified hash made with old parameters is re-hashed (best effort, compare-and-swap).
 */
export async function verifyCredentials(
  parts: PasswordFlowParts,
  body: unknown,
  clientAddress: string | undefined,
  /** The request's `User-Agent`, bounded: a failed attempt's entry shows its device (parsed, never raw). */
  userAgent?: string,
): Promise<PasswordRecord> {
  const { runtime } = parts
  const fields = readCredentials(body)
  const { signInWith, emailNormalization } = runtime.settings
  const identifier = readIdentifier(fields.username, signInWith, emailNormalization)
  const password = presentedPassword(fields.password, parts.rules)
  const { record: account, throttleKey } = await findByIdentifier(parts.accounts, identifier)
  try {
    await parts.throttle.attempt(throttleKey, clientAddress)
  } catch (error) {
    if (error instanceof LocalAuthError && error.code === 'local.rate_limited') {
      runtime.emit(
        'login.rate_limited',
        defined({ retryAfterSeconds: error.retryAfterSeconds ?? 1, clientAddress }),
      )
    }
    throw error
  }
  let verified: boolean
  try {
    verified =
      account === null
        ? await parts.dummy.verifyAgainstDummy(password)
        : await parts.hasher.verify(account.passwordHash, password)
  } catch (error) {
    if (isPortcullisError(error) && error.code === 'local.hashing_busy') {
      runtime.emit(
        'login.failed',
        defined({ reason: 'hashing_busy', accountId: account?.accountId, clientAddress, userAgent }),
      )
    }
    throw error
  }
  if (account === null || !verified) {
    runtime.emit(
      'login.failed',
      account === null
        ? defined({ reason: 'unknown_account', clientAddress, userAgent })
        : defined({ reason: 'bad_password', accountId: account.accountId, clientAddress, userAgent }),
    )
    throw invalidCredentials()
  }
  await parts.throttle.succeeded(throttleKey).catch(() => {})
  await rehashIfNeeded(parts, account, password)
  return account
}

async function rehashIfNeeded(
  parts: PasswordFlowParts,
  account: PasswordRecord,
  password: string,
): Promise<void> {
  try {
    if (!parts.hasher.needsRehash(account.passwordHash)) return
    const passwordHash = await parts.hasher.hash(password)
    await parts.accounts.setPassword({
      accountId: account.accountId,
      passwordHash,
      now: new Date(parts.runtime.clock()),
      expectedPasswordHash: account.passwordHash,
      bumpEpoch: false,
      rehash: true,
    })
  } catch {
    // Best effort: the sign-in stands; the next one tries again.
  }
}

/** Registration under the configured policy; answers the new account id and normalized username. */
export async function registerAccount(
  parts: PasswordFlowParts,
  body: unknown,
  clientAddress: string | undefined,
): Promise<{ readonly accountId: string; readonly username: string }> {
  const policy = parts.runtime.settings.registration
  if (policy === 'closed') throw new LocalAuthError('local.registration_closed', 'registration is closed')
  const fields = readRegistration(body)
  const username = normalizeUsername(fields.username)
  const password = validatePassword(fields.password, parts.rules)
  let inviteDigest: string | undefined
  if (policy === 'invite-only') {
    if (fields.inviteCode === undefined) {
      throw new LocalAuthError('local.registration_closed', 'registration needs an invite code')
    }
    if (!OPAQUE.test(fields.inviteCode))
      throw new LocalAuthError('local.invite_invalid', 'the invite code is not valid')
    inviteDigest = digestOpaqueToken(fields.inviteCode)
  }
  await parts.throttle.attempt(undefined, clientAddress)
  await screenNewPassword(parts.screen, password, { purpose: 'sign-up', username })
  const passwordHash = await parts.hasher.hash(password)
  const outcome = await parts.accounts.createAccount({
    accountId: randomUUID(),
    username,
    passwordHash,
    now: new Date(parts.runtime.clock()),
    ...(inviteDigest === undefined ? {} : { invite: { digest: inviteDigest } }),
  })
  if (outcome.outcome === 'username-taken')
    throw new LocalAuthError('local.username_taken', 'the username is taken')
  if (outcome.outcome === 'invite-invalid')
    throw new LocalAuthError('local.invite_invalid', 'the invite code is not valid')
  // `address-taken` answers only a request that names an address, which this one does not.
  if (outcome.outcome !== 'created')
    throw invalid('the store answered for an address the request did not name')
  return { accountId: outcome.account.accountId, username: outcome.account.username }
}

/**
 * The password method of a signed-in account: `local.sign_in_required` when the account is gone,
 * `account.password_missing` when it signs in only with provider identities.
 */
export async function passwordOf(accounts: AccountStore, accountId: string): Promise<PasswordRecord> {
  const password = await accounts.findPassword({ accountId })
  if (password !== null) return password
  if ((await accounts.getAccount(accountId)) === null) {
    throw new LocalAuthError('local.sign_in_required', 'the account does not exist')
  }
  throw new AccountError(AccountErrorCodes.passwordMissing, 'the account has no password')
}

/**
 * A password change by the signed-in account: the current password is verified (under the per-account
 * limit), the new hash is written with an epoch bump in one compare-and-swap, and the new epoch is
 * remembered at once on this instance. The caller ends sessions and token families.
 */
export async function changeAccountPassword(
  parts: PasswordFlowParts,
  accountId: string,
  body: unknown,
  clientAddress: string | undefined,
): Promise<PasswordRecord> {
  const fields = readPasswordChange(body)
  const current = presentedPassword(fields.currentPassword, parts.rules)
  const next = validatePassword(fields.newPassword, parts.rules)
  const account = await passwordOf(parts.accounts, accountId)
  await parts.throttle.attempt(account.username, clientAddress)
  if (!(await parts.hasher.verify(account.passwordHash, current))) {
    parts.runtime.emit('login.failed', defined({ reason: 'bad_password', accountId, clientAddress }))
    throw invalidCredentials()
  }
  await screenNewPassword(parts.screen, next, { purpose: 'change', username: account.username })
  const passwordHash = await parts.hasher.hash(next)
  const outbox = await noticesOf(parts.notices, accountId, { type: 'password-changed' })
  const generation = parts.runtime.epochs.generation
  const updated = await parts.accounts.setPassword({
    accountId,
    passwordHash,
    now: new Date(parts.runtime.clock()),
    expectedPasswordHash: account.passwordHash,
    bumpEpoch: true,
    ...outbox,
  })
  if (updated === null) {
    throw new LocalAuthError('local.password_changed_concurrently', 'the password was changed concurrently')
  }
  await parts.throttle.succeeded(account.username).catch(() => {})
  parts.runtime.epochs.remember(accountId, updated.securityEpoch, generation)
  parts.runtime.emit('password.changed', defined({ accountId, clientAddress }))
  parts.runtime.emit('epoch.bumped', { accountId, epoch: updated.securityEpoch, reason: 'password_changed' })
  return updated
}

/**
 * A password re-check by the signed-in account (before a sensitive action such as linking an identity):
 * the per-account and per-address sign-in limits first (before any hashing, `local.rate_limited` with
 * `retryAfterSeconds` and a `login.rate_limited` event), then one verification. A wrong password is
 * `local.invalid_credentials` with a `login.failed` event; a right one resets the account's counter.
 */
export async function confirmAccountPassword(
  parts: PasswordFlowParts,
  accountId: string,
  password: unknown,
  clientAddress: string | undefined,
): Promise<PasswordRecord> {
  const { runtime } = parts
  if (typeof password !== 'string' || password === '') throw invalidCredentials()
  const presented = presentedPassword(password, parts.rules)
  const account = await passwordOf(parts.accounts, accountId)
  try {
    await parts.throttle.attempt(account.username, clientAddress)
  } catch (error) {
    if (error instanceof LocalAuthError && error.code === 'local.rate_limited') {
      runtime.emit(
        'login.rate_limited',
        defined({ retryAfterSeconds: error.retryAfterSeconds ?? 1, clientAddress }),
      )
    }
    throw error
  }
  if (!(await parts.hasher.verify(account.passwordHash, presented))) {
    runtime.emit('login.failed', defined({ reason: 'bad_password', accountId, clientAddress }))
    throw invalidCredentials()
  }
  await parts.throttle.succeeded(account.username).catch(() => {})
  return account
}

/**
 * A reset: a new password without the old one (the administrator's hook, and the password-reset flow),
 * screened, with an epoch bump. Null for an unknown account or one without a password.
 */
export async function resetAccountPassword(
  parts: PasswordFlowParts,
  accountId: string,
  newPassword: unknown,
): Promise<PasswordRecord | null> {
  const password = validatePassword(newPassword, parts.rules)
  const existing = await parts.accounts.findPassword({ accountId })
  if (existing === null) return null
  await screenNewPassword(parts.screen, password, { purpose: 'reset', username: existing.username })
  const passwordHash = await parts.hasher.hash(password)
  const outbox = await noticesOf(parts.notices, accountId, { type: 'password-reset' })
  const generation = parts.runtime.epochs.generation
  const updated = await parts.accounts.setPassword({
    accountId,
    passwordHash,
    now: new Date(parts.runtime.clock()),
    bumpEpoch: true,
    ...outbox,
  })
  if (updated === null) return null
  parts.runtime.epochs.remember(accountId, updated.securityEpoch, generation)
  parts.runtime.emit('password.changed', { accountId })
  parts.runtime.emit('epoch.bumped', { accountId, epoch: updated.securityEpoch, reason: 'password_reset' })
  return updated
}
