import type { Impersonator } from '../authentication/principal.js'
import type { NewOneTimeCode } from '../codes/port.js'
import type { OutboxEntry } from '../mail/outbox.js'
import { associatedData } from '../protection/associated-data.js'
import { parseProtectedEnvelope, serializeProtectedEnvelope } from '../protection/envelope-format.js'
import { tellAddressVerified } from './address-verified.js'
import { readFields } from './bodies.js'
import { AccountEmailError, AccountEmailErrorCodes, invalidCode, storeCall } from './errors.js'
import type { AccountEmailParts } from './flow-context.js'
import { codeLink } from './flow-parts.js'

// Email verification: a code (and a link carrying it to a page that POSTs) sent to an address of an
// account; consuming it verifies the address, unless another account verified it first. The flow
// handle a person holds is a sealed token naming the code record, the account (none for an address
// that already belongs to someone) and the address, padded to one length, so resending needs no
// lookup by address and the token of a new address looks like the token of a known one.

const PURPOSE = 'email-verification'
const FLOW_AAD = 'portcullis.account-email.verification-flow.v1'
const PADDED = 384
const MAX_TOKEN = 2048
const encoder = new TextEncoder()
const decoder = new TextDecoder()

interface VerificationFlow {
  readonly id: string
  readonly accountId: string | null
  readonly address: string
}

/** Seals the flow handle a person holds (the sign-up answer, the link). */
export async function sealVerificationFlow(
  parts: AccountEmailParts,
  flow: VerificationFlow,
): Promise<string> {
  const json = JSON.stringify({ i: flow.id, a: flow.accountId ?? '', e: flow.address })
  const padded = json + ' '.repeat(Math.max(0, PADDED - json.length))
  const envelope = await parts.protector.protect(encoder.encode(padded), associatedData(FLOW_AAD))
  return serializeProtectedEnvelope(envelope)
}

/** Opens a flow handle; null when it is not one of ours (tampered, truncated, another key). */
async function openVerificationFlow(
  parts: AccountEmailParts,
  token: string,
): Promise<VerificationFlow | null> {
  if (token.length > MAX_TOKEN) return null
  try {
    const plain = await parts.protector.unprotect(parseProtectedEnvelope(token), associatedData(FLOW_AAD))
    const data = JSON.parse(decoder.decode(plain).trimEnd()) as { i?: unknown; a?: unknown; e?: unknown }
    if (typeof data.i !== 'string' || typeof data.a !== 'string' || typeof data.e !== 'string') return null
    return { id: data.i, accountId: data.a === '' ? null : data.a, address: data.e }
  } catch (error) {
    if (error instanceof AccountEmailError) throw error
    return null
  }
}

/** A verification code ready to be stored: the record, the message carrying it, the flow handle. */
export interface PreparedVerification {
  readonly code: NewOneTimeCode
  readonly entry: OutboxEntry
  readonly flow: string
}

/**
 * Makes a verification code for the address with its `verification` message (or, for an address that
 * belongs to someone, `accountId` null, the `existing` message instead: its code is sent to nobody) and
 * the sealed flow handle, writing nothing: `issueVerification` stores it, a sign-up hands it to
 * `createAccount` so the account and its code land in one transaction.
 */
export async function prepareVerification(
  parts: AccountEmailParts,
  target: { readonly accountId: string | null; readonly address: string },
  existing?: () => Promise<OutboxEntry>,
): Promise<PreparedVerification> {
  const id = parts.arithmetic.flowId()
  const code = parts.arithmetic.code()
  const now = new Date(parts.clock())
  const flow = await sealVerificationFlow(parts, { id, ...target })
  const entry =
    existing !== undefined
      ? await existing()
      : await parts.seal(
          {
            kind: 'verification',
            to: { address: target.address },
            locale: await parts.locale(target.accountId),
            code,
            link: codeLink(parts.publicOrigin, parts.pages.verifyEmail, flow, code),
            validForMinutes: parts.verificationMinutes,
          },
          target.accountId,
        )
  return {
    flow,
    entry,
    code: {
      id,
      purpose: PURPOSE,
      accountId: target.accountId,
      address: target.address,
      ...parts.arithmetic.digest({ id, purpose: PURPOSE, code }),
      maxAttempts: parts.maxAttempts,
      createdAt: now,
      expiresAt: new Date(now.getTime() + parts.verificationMinutes * 60_000),
      payload: null,
    },
  }
}

/**
 * Issues a verification code for the account's address with its message in the same transaction (see
 * `prepareVerification`). Answers the sealed flow handle.
 */
export async function issueVerification(
  parts: AccountEmailParts,
  target: { readonly accountId: string | null; readonly address: string },
  existing?: () => Promise<OutboxEntry>,
): Promise<string> {
  const prepared = await prepareVerification(parts, target, existing)
  await storeCall(() => parts.codes.issue({ code: prepared.code, outbox: [prepared.entry] }))
  return prepared.flow
}

/** The message an address that already has an account gets instead of a code. */
export async function existingAccountMessage(
  parts: AccountEmailParts,
  accountId: string | null,
  address: string,
): Promise<OutboxEntry> {
  return parts.seal(
    {
      kind: 'existing-account-sign-up',
      to: { address },
      locale: await parts.locale(accountId),
      signInLink: new URL(parts.pages.signIn, parts.publicOrigin).toString(),
      resetLink: new URL(parts.pages.resetPassword, parts.publicOrigin).toString(),
    },
    accountId,
  )
}

/**
 * Verifies an address with `{ flow, code }`: the code is consumed (single use, attempt-limited) and the
 * address marked verified. Throws `account_email.invalid_code` for a wrong, used, expired or unknown
 * code (one answer), `account_email.address_taken` when another account verified it first.
 */
export async function verifyEmail(
  parts: AccountEmailParts,
  body: unknown,
  clientAddress: string | undefined,
  impersonator?: Impersonator,
): Promise<{ readonly accountId: string; readonly address: string }> {
  const acting = actingFields(impersonator)
  const fields = readFields(body, ['flow', 'code'])
  const code = fields.code.replace(/[\s-]/g, '')
  const flow = await openVerificationFlow(parts, fields.flow)
  if (flow === null || !/^[A-Za-z0-9]{4,64}$/.test(code)) {
    parts.local.emit(
      'email.verification_failed',
      defined({ reason: 'invalid_code', clientAddress, ...acting }),
    )
    throw invalidCode()
  }
  const outcome = await storeCall(() =>
    parts.codes.consume({
      id: flow.id,
      purpose: PURPOSE,
      candidates: parts.arithmetic.candidates({ id: flow.id, purpose: PURPOSE, code }),
      now: new Date(parts.clock()),
    }),
  )
  const accountId = outcome.outcome === 'consumed' ? outcome.code.accountId : null
  if (outcome.outcome !== 'consumed' || accountId === null) {
    parts.local.emit(
      'email.verification_failed',
      defined({
        reason: outcome.outcome === 'exhausted' ? 'exhausted' : 'invalid_code',
        accountId: flow.accountId ?? undefined,
        clientAddress,
        ...acting,
      }),
    )
    throw invalidCode()
  }
  const address = outcome.code.address
  const verified = await storeCall(() =>
    parts.accounts.verifyEmailAddress({ accountId, address, now: new Date(parts.clock()) }),
  )
  if (verified.outcome === 'taken') {
    parts.local.emit(
      'email.verification_failed',
      defined({ reason: 'taken', accountId, clientAddress, ...acting }),
    )
    throw new AccountEmailError(AccountEmailErrorCodes.addressTaken, 'another account verified the address', {
      detail: 'This address was verified by another account first',
    })
  }
  if (verified.outcome === 'not-found') {
    parts.local.emit(
      'email.verification_failed',
      defined({ reason: 'invalid_code', accountId, clientAddress, ...acting }),
    )
    throw invalidCode()
  }
  parts.local.emit('email.verified', defined({ accountId, clientAddress, ...acting }))
  await tellAddressVerified(parts, { accountId, address }, clientAddress, impersonator)
  return { accountId, address }
}

/**
 * Sends a new code for the flow a person holds (`{ flow }`), under the per-address and per-client
 * limits; the previous code stops working. The same answer whatever the flow names (an address with
 * an account elsewhere gets its notice again; an address verified or removed meanwhile gets nothing).
 */
export async function resendVerification(
  parts: AccountEmailParts,
  body: unknown,
  info: { readonly clientAddress: string | undefined; readonly impersonator?: Impersonator | undefined },
): Promise<{ readonly flow: string }> {
  const fields = readFields(body, ['flow'])
  const flow = await openVerificationFlow(parts, fields.flow)
  if (flow === null) throw invalidCode()
  await parts.limiter.attempt('verification', flow.address, info.clientAddress)
  if (flow.accountId === null) {
    const owner = await storeCall(() => parts.accounts.findAccountByVerifiedEmail(flow.address))
    const next = await issueVerification(parts, { accountId: null, address: flow.address }, () =>
      existingAccountMessage(parts, owner?.accountId ?? null, flow.address),
    )
    return { flow: next }
  }
  const accountId = flow.accountId
  const addresses = await storeCall(() => parts.accounts.listEmailAddresses(accountId))
  const held = addresses.find((each) => each.address === flow.address)
  if (held === undefined || held.verified) return { flow: fields.flow }
  const next = await issueVerification(parts, { accountId, address: flow.address })
  parts.local.emit(
    'email.verification_sent',
    defined({ accountId, clientAddress: info.clientAddress, ...actingFields(info.impersonator) }),
  )
  return { flow: next }
}

/**
 * The fields that name an impersonation in the events of what it did (`actorId`, the administrator;
 * `impersonationId`), or none for the person's own requests.
 */
export function actingFields(impersonator: Impersonator | undefined): {
  readonly actorId?: string
  readonly impersonationId?: string
} {
  return impersonator === undefined
    ? {}
    : { actorId: impersonator.accountId, impersonationId: impersonator.impersonationId }
}

/** Drops `undefined` members (event fields are exact optional properties). */
export function defined<T extends Record<string, unknown>>(
  fields: T,
): { [K in keyof T]: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value
  return out as { [K in keyof T]: Exclude<T[K], undefined> }
}
