import { randomBytes, randomUUID } from 'node:crypto'
import { generateCode } from '../codes/generate.js'
import { digestOpaqueToken } from '../local-accounts/opaque-token.js'
import { validatePassword } from '../local-accounts/passwords/password.js'
import { readAddress, readFields } from './bodies.js'
import { AccountEmailError, AccountEmailErrorCodes, invalidEmailFlowInput, storeCall } from './errors.js'
import type { AccountEmailParts } from './flow-context.js'
import { codeLink } from './flow-parts.js'
import {
  defined,
  existingAccountMessage,
  issueVerification,
  prepareVerification,
  sealVerificationFlow,
} from './verification.js'

// Sign-up with verification. A new address gets an account (its password screened and hashed, the
// address unverified and primary) and a verification code; an address another account verified gets
// no account and an `existing-account-sign-up` message instead. Both answer 202 with a flow handle of
// one length, after the same limits, the same screen, one password hash and the same number of store
// calls, so the answer tells nothing about who has an account.
//
// Usernames: the body has none. The account gets a generated one (`u-` and 20 random characters) that
// the person never needs: they sign in with the address once it is verified (`signInWith` including
// `email`). Taking a username from the body would answer "taken" for a new address only, which tells
// an attacker the address is not registered.

const OPAQUE = /^[A-Za-z0-9_-]{22,512}$/
const USERNAME_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'

export interface SignUpAccepted {
  /** The flow handle for `verifyEmail` and `resendVerification` (the same for known and new addresses). */
  readonly flow: string
}

/**
 * Signs up with `{ email, password }` (and `inviteCode` under `invite-only`). Throws before any lookup
 * for a malformed body, address or password, closed registration and a malformed invite code; after
 * that, a refused (screened) password or the rate limit, which depend on nothing stored.
 */
export async function signUp(
  parts: AccountEmailParts,
  body: unknown,
  clientAddress: string | undefined,
): Promise<SignUpAccepted> {
  const { local } = parts
  const policy = local.registration
  if (policy === 'closed') {
    throw new AccountEmailError(AccountEmailErrorCodes.signUpClosed, 'sign-up is closed', {
      detail: 'Sign-up is closed',
    })
  }
  const fields = readFields(body, ['email', 'password'], ['inviteCode'])
  const address = readAddress(fields.email, parts.emailNormalization)
  const password = validatePassword(fields.password, local.passwordRules)
  let inviteDigest: string | undefined
  if (policy === 'invite-only') {
    if (fields.inviteCode === undefined || !OPAQUE.test(fields.inviteCode)) {
      throw invalidEmailFlowInput('sign-up needs a well-formed invite code')
    }
    inviteDigest = digestOpaqueToken(fields.inviteCode)
  }
  await parts.limiter.attempt('sign-up', address, clientAddress)
  await local.screenPassword(password, { purpose: 'sign-up', addresses: [address] })
  const owner = await storeCall(() => parts.accounts.findAccountByVerifiedEmail(address))
  const passwordHash = await local.hasher.hash(password)
  if (owner !== null) {
    // One write, as for a new address (the account, its address, its code and its mail in one
    // `createAccount`): the code record carries the message this address gets, and a verification of
    // the size a new address gets is sealed and dropped, so both answers seal the same messages.
    const flow = await issueVerification(parts, { accountId: null, address }, async () => {
      await unsentVerification(parts, address)
      return existingAccountMessage(parts, owner.accountId, address)
    })
    local.emit('sign_up.existing_address', defined({ accountId: owner.accountId, clientAddress }))
    return { flow }
  }
  const username = `u-${generateCode({ length: 20, alphabet: USERNAME_ALPHABET, ...random(parts) })}`
  const accountId = randomUUID()
  const now = new Date(parts.clock())
  // Sealed and dropped: the message a taken address gets, so both answers seal the same messages.
  await existingAccountMessage(parts, accountId, address)
  const prepared = await prepareVerification(parts, { accountId, address })
  // One transaction: the account, its unverified primary address, the verification code and the mail
  // carrying it are all written, or none is (a failure in between leaves no account without its address,
  // no code without its account, no mail for a code that does not exist).
  const created = await storeCall(() =>
    parts.accounts.createAccount({
      accountId,
      username,
      passwordHash,
      now,
      ...(inviteDigest === undefined ? {} : { invite: { digest: inviteDigest } }),
      emailAddress: address,
      code: prepared.code,
      outbox: [prepared.entry],
    }),
  )
  if (created.outcome !== 'created') {
    // An invite that is unknown, used or expired, or an address another account verified since the
    // lookup (a generated username is never taken): the same answer as every other sign-up, and
    // nothing is created or sent. The handle names a code that was never stored.
    const reason = created.outcome === 'address-taken' ? 'address_taken' : 'invite_invalid'
    local.emit('sign_up.refused', defined({ reason, clientAddress }))
    return { flow: prepared.flow }
  }
  flowLengths.set(parts, prepared.flow.length)
  local.emit('sign_up.created', defined({ accountId, clientAddress }))
  return { flow: prepared.flow }
}

function random(parts: AccountEmailParts) {
  return parts.random === undefined ? {} : { randomBytes: parts.random }
}

/** A flow handle that names no code, looking like every other. */
async function sealedNothing(parts: AccountEmailParts, address: string): Promise<string> {
  return sealVerificationFlow(parts, { id: parts.arithmetic.flowId(), accountId: null, address })
}

/** The length of a flow handle: one for every flow (its sealed data is padded), learnt once. */
const flowLengths = new WeakMap<AccountEmailParts, number>()

/**
 * Seals, and drops, a verification message of the size a new address gets (a code, and a link holding
 * a flow handle's worth of random characters), so a taken address costs the same sealing.
 */
async function unsentVerification(parts: AccountEmailParts, address: string): Promise<void> {
  let length = flowLengths.get(parts)
  if (length === undefined) {
    length = (await sealedNothing(parts, address)).length
    flowLengths.set(parts, length)
  }
  const flow = randomBytes(Math.ceil((length * 3) / 4))
    .toString('base64url')
    .slice(0, length)
  const code = parts.arithmetic.code()
  await parts.seal(
    {
      kind: 'verification',
      to: { address },
      locale: await parts.locale(null),
      code,
      link: codeLink(parts.publicOrigin, parts.pages.verifyEmail, flow, code),
      validForMinutes: parts.verificationMinutes,
    },
    null,
  )
}
