import { domainToASCII } from 'node:url'
import { PortcullisError } from '../errors/portcullis-error.js'

/** RFC 5321 §4.5.3.1.1: a local part is at most 64 octets. */
export const MAX_LOCAL_PART_OCTETS = 64
/** RFC 5321 §4.5.3.1.3 (a 256-octet path less its angle brackets): an address is at most 254 octets. */
export const MAX_EMAIL_ADDRESS_OCTETS = 254
/** RFC 1035 §2.3.4: a label is at most 63 octets. */
const MAX_LABEL_OCTETS = 63
/** Raw input longer than this (UTF-16 units) is refused before anything else is done with it. */
const MAX_RAW_LENGTH = 1024

/**
 * Why an address was refused (`EmailAddressError.reason`): not a string; a control, format, line or
 * paragraph separator character anywhere (CR/LF included, so nothing can be injected into a mail header);
 * no `@` or more than one; an empty, malformed or over-long local part; an empty, malformed or over-long
 * domain; the whole address over 254 octets.
 */
export type EmailAddressRefusal =
  | 'not-a-string'
  | 'control-character'
  | 'missing-at'
  | 'local-part'
  | 'local-part-too-long'
  | 'domain'
  | 'too-long'

/** The stable code of every refused address. */
export const EMAIL_ADDRESS_INVALID = 'email.invalid_address'

/** A refused email address (class invalid-input). The message never repeats the address. */
export class EmailAddressError extends PortcullisError {
  declare readonly code: typeof EMAIL_ADDRESS_INVALID
  readonly reason: EmailAddressRefusal

  constructor(reason: EmailAddressRefusal, message: string) {
    super(EMAIL_ADDRESS_INVALID, 'invalid-input', message)
    this.reason = reason
  }
}

export interface EmailAddressNormalization {
  /**
   * Lower-case the local part as well (`Alice@x` and `alice@x` become one address). RFC 5321 leaves the
   * local part's case to the receiving server, so the default is false: only the domain is lowered.
   * Whatever is chosen must stay the same for the life of the stored addresses.
   */
  readonly foldLocalPartCase?: boolean
}

/** Cc, Cf (zero-width, bidi overrides), Cs (lone surrogates), Zl and Zp. */
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u
/** RFC 5322 atext and the dot of a dot-atom, plus any non-ASCII (RFC 6531 UTF8-non-ascii). */
const LOCAL_CHARACTER = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.\u0080-\u{10ffff}-]+$/u
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

const octets = (text: string): number => Buffer.byteLength(text, 'utf8')

function refuse(reason: EmailAddressRefusal, message: string): never {
  throw new EmailAddressError(reason, message)
}

function localPartOf(raw: string, fold: boolean): string {
  const nfc = raw.normalize('NFC')
  const local = fold ? nfc.toLowerCase().normalize('NFC') : nfc
  if (local === '') refuse('local-part', 'the local part is empty')
  if (!LOCAL_CHARACTER.test(local) || /[\p{Z}\s]/u.test(local)) {
    refuse('local-part', 'the local part must be a dot-atom (no quotes, spaces or specials)')
  }
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) {
    refuse('local-part', 'the local part has a misplaced dot')
  }
  if (octets(local) > MAX_LOCAL_PART_OCTETS) {
    refuse('local-part-too-long', `the local part must be at most ${MAX_LOCAL_PART_OCTETS} octets`)
  }
  return local
}

/** An ASCII character that is not a letter, a digit, `-` or `.`. */
const ASCII_OUTSIDE_HOST_NAMES = /[^A-Za-z0-9.\-\u0080-\uffff]/

function domainOf(raw: string): string {
  if (raw === '' || raw.endsWith('.')) refuse('domain', 'the domain is empty or ends with a dot')
  // The host parser behind domainToASCII reads a URL host: it stops at `/`, `?`, `#` or `\` and decodes
  // `%41`, so `example.com/evil` would come back as `example.com`. No ASCII character but a letter, a
  // digit, `-` or `.` may reach it (others, IDNA's, are mapped or refused by it).
  if (ASCII_OUTSIDE_HOST_NAMES.test(raw)) refuse('domain', 'the domain is not a valid host name')
  const ascii = domainToASCII(raw.normalize('NFC'))
  if (ascii === '') refuse('domain', 'the domain is not a valid host name')
  const labels = ascii.split('.')
  for (const label of labels) {
    if (label.length > MAX_LABEL_OCTETS) refuse('domain', 'a domain label is longer than 63 octets')
    if (!LABEL.test(label)) refuse('domain', 'the domain is not a valid host name')
  }
  // An all-digit last label is an address literal in disguise (`1.2.3.4`): refused like `[1.2.3.4]`.
  if (/^[0-9]+$/.test(labels[labels.length - 1] ?? '')) refuse('domain', 'the domain is an IP address')
  return ascii
}

/**
 * The one form an email address is stored, compared and looked up under: surrounding white space
 * trimmed, the local part in Unicode NFC (never case-folded unless `foldLocalPartCase`), the domain
 * lower-cased and IDNA-encoded (`bücher.DE` is `xn--bcher-kva.de`). Normalizing a normalized address
 * changes nothing.
 *
 * Throws `EmailAddressError` (`email.invalid_address`, with a `reason`) for a non-string; a control,
 * format, line or paragraph separator character anywhere, leading and trailing ones included (CR and LF
 * can never reach a mail header); a missing `@` or more than one; a local part that is not a dot-atom
 * (quoted strings and comments are refused) or is over 64 octets; a domain that is not a host name (an
 * address literal, an IP address, a trailing dot, a label over 63 octets); an address over 254 octets.
 */
export function normalizeEmailAddress(input: unknown, options: EmailAddressNormalization = {}): string {
  if (typeof input !== 'string') refuse('not-a-string', 'the address must be a string')
  if (input.length > MAX_RAW_LENGTH) {
    refuse('too-long', `the address must be at most ${MAX_EMAIL_ADDRESS_OCTETS} octets`)
  }
  if (FORBIDDEN.test(input)) refuse('control-character', 'the address contains a control character')
  const trimmed = input.trim()
  const at = trimmed.indexOf('@')
  if (at < 0 || at !== trimmed.lastIndexOf('@')) refuse('missing-at', 'the address must have exactly one @')
  const local = localPartOf(trimmed.slice(0, at), options.foldLocalPartCase === true)
  const domain = domainOf(trimmed.slice(at + 1))
  const address = `${local}@${domain}`
  if (octets(address) > MAX_EMAIL_ADDRESS_OCTETS) {
    refuse('too-long', `the address must be at most ${MAX_EMAIL_ADDRESS_OCTETS} octets`)
  }
  return address
}

/** True when `value` is an address in its normalized form (what the stores accept). */
export function isNormalizedEmailAddress(value: unknown): value is string {
  try {
    return normalizeEmailAddress(value) === value
  } catch {
    return false
  }
}
