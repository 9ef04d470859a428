// What may go into a header: addresses, display names and subjects are checked before anything renders
// or connects, so a value can never end a header line and start another (`\r\nBcc: ...`).
import { MailError, MailErrorCodes } from './errors.js'

/** An address and the name shown beside it (`"Ada Lovelace" <ada@example.com>`). */
export interface MailAddress {
  readonly address: string
  /** The display name; any character but controls, quoted or encoded by the transport. */
  readonly name?: string
}

/**
 * C0 and C1 controls, DEL, the Unicode line and paragraph separators, and the bidirectional overrides
 * and isolates (which can make a name read as another).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
const FORBIDDEN_IN_HEADER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u

/**
 * An RFC 2047 encoded word (`=?UTF-8?B?...?=`): a transport passes it through as it is, and a reader
 * decodes it, so it could smuggle a line break or another address into what a person sees.
 */
const ENCODED_WORD = /=\?[^?\s]*\?[bq]\?[^?\s]*\?=/i

/** RFC 5322 atext, plus any non-ASCII character (RFC 6532), for each dot-separated atom of the local part. */
const LOCAL_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\u{10ffff}-]+$/u
/** One DNS label after IDNA (ASCII letters, digits, hyphens; no hyphen at either end). */
const ASCII_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/
const MAX_ADDRESS = 254
const MAX_LOCAL = 64
const MAX_NAME = 256
/** A subject is one line; 998 is the line limit of RFC 5322, far above what anyone reads. */
export const MAX_SUBJECT_LENGTH = 400

/** Refuses a header value with a control character or an RFC 2047 encoded word; `field` names it in the error, never the value. */
export function requireHeaderText(value: unknown, field: string, maxLength: number): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new MailError(MailErrorCodes.invalidMessage, `${field} must be a non-empty string`, { field })
  }
  if (FORBIDDEN_IN_HEADER.test(value)) {
    throw new MailError(MailErrorCodes.headerInjection, `${field} holds a control character`, { field })
  }
  if (ENCODED_WORD.test(value)) {
    throw new MailError(MailErrorCodes.headerInjection, `${field} holds an encoded word (=?...?=)`, { field })
  }
  if (value.length > maxLength) {
    throw new MailError(MailErrorCodes.invalidMessage, `${field} is longer than ${maxLength} characters`, {
      field,
    })
  }
  return value
}

function invalidAddress(field: string, why: string): MailError {
  return new MailError(MailErrorCodes.invalidAddress, `${field} ${why}`, { field })
}

/** The domain in its ASCII (IDNA) form, or undefined when it is not a host name with a dot. */
function asciiDomain(domain: string): string | undefined {
  if (domain.startsWith('[') || /[\s/\\?#@:%]/.test(domain)) return undefined
  let host: string
  try {
    host = new URL(`http://${domain}/`).hostname
  } catch {
    return undefined
  }
  const labels = host.split('.')
  if (labels.length < 2 || host.length > 253) return undefined
  if (!labels.every((label) => ASCII_LABEL.test(label))) return undefined
  // A dotted-decimal host (an IPv4 address in disguise) is not a mail domain.
  if (labels.every((label) => /^[0-9]+$/.test(label))) return undefined
  return host
}

/**
 * Checks one mailbox address (`local@domain`): one `@`, a dot-atom local part of at most 64 characters
 * (no quoted forms, spaces, angle brackets, commas or controls), a domain that is a host name (IDNA
 * applied; no address literal), 254 characters at most. Returns it unchanged; normalising (case,
 * IDNA for storage) is the account's business, not the transport's.
 */
export function requireMailAddress(value: unknown, field = 'address'): string {
  if (typeof value !== 'string' || value === '') throw invalidAddress(field, 'must be a non-empty string')
  if (FORBIDDEN_IN_HEADER.test(value)) {
    throw new MailError(MailErrorCodes.headerInjection, `${field} holds a control character`, { field })
  }
  if (value.length > MAX_ADDRESS) throw invalidAddress(field, `is longer than ${MAX_ADDRESS} characters`)
  const at = value.lastIndexOf('@')
  if (at <= 0 || value.indexOf('@') !== at) throw invalidAddress(field, 'must hold exactly one @')
  const local = value.slice(0, at)
  const domain = value.slice(at + 1)
  if (local.length > MAX_LOCAL) throw invalidAddress(field, `has a local part over ${MAX_LOCAL} characters`)
  if (!local.split('.').every((atom) => LOCAL_ATOM.test(atom))) {
    throw invalidAddress(field, 'has a local part that is not a dot-atom')
  }
  if (asciiDomain(domain) === undefined) throw invalidAddress(field, 'has a domain that is not a host name')
  return value
}

/** Checks an address and its optional display name; returns a copy holding only those two members. */
export function requireMailbox(value: unknown, field: string): MailAddress {
  if (typeof value !== 'object' || value === null) {
    throw invalidAddress(field, 'must be an object with an address')
  }
  const { address, name } = value as { address?: unknown; name?: unknown }
  const checked = requireMailAddress(address, `${field}.address`)
  if (name === undefined) return { address: checked }
  return { address: checked, name: requireHeaderText(name, `${field}.name`, MAX_NAME) }
}
