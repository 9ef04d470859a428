import type { CodePurpose, OneTimeCodeRecord } from '../codes/port.js'
import { AccountEmailError, type AccountEmailErrorCode, invalidCode, storeCall } from './errors.js'
import type { EmailFlowParts } from './flow-parts.js'

/** A refusal of an email flow. */
export function emailFlowError(code: AccountEmailErrorCode, message: string): AccountEmailError {
  return new AccountEmailError(code, message, { detail: message })
}

/** A wrong, used, expired, exhausted or foreign code: one answer for all of them. */
export function codeRefusal(): AccountEmailError {
  return invalidCode()
}

const FLOW = /^[A-Za-z0-9_-]{22,64}$/
const CODE = /^[A-Za-z0-9]{4,16}$/

/**
 * Consumes the presented code of `purpose` (one digest per key version): the record on success,
 * `account_email.invalid_code` otherwise (a malformed flow or code is refused before the store is
 * asked, and counts nothing).
 */
export async function consumeFlowCode(
  parts: EmailFlowParts,
  purpose: CodePurpose,
  flowId: unknown,
  code: unknown,
): Promise<OneTimeCodeRecord> {
  if (typeof flowId !== 'string' || !FLOW.test(flowId)) throw codeRefusal()
  if (typeof code !== 'string') throw codeRefusal()
  const typed = code.replace(/[\s-]/g, '')
  if (!CODE.test(typed)) throw codeRefusal()
  const outcome = await storeCall(() =>
    parts.codes.consume({
      id: flowId,
      purpose,
      candidates: parts.arithmetic.candidates({ id: flowId, purpose, code: typed }),
      now: new Date(parts.clock()),
    }),
  )
  if (outcome.outcome !== 'consumed') throw codeRefusal()
  return outcome.code
}
