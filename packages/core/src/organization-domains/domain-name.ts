import { domainToASCII } from 'node:url'
import { OrganizationDomainError, OrganizationDomainErrorCodes } from './errors.js'

/** RFC 1035 §2.3.4: a name is at most 253 octets in its dotted form, a label at most 63. */
const MAX_DOMAIN_OCTETS = 253
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/
/** Raw input longer than this (UTF-16 units) is refused before anything else is done with it. */
const MAX_RAW_LENGTH = 1024
/** Cc, Cf (zero-width, bidi overrides), Cs, Zl, Zp and any white space inside the name. */
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\s]/u
/**
 * Letters, marks, digits, hyphens and dots only, before IDNA: `domainToASCII` parses a URL host and would
 * drop what follows `/`, `?`, `#` or `\\` and decode `%41`, so `example.com/evil` must never reach it.
 */
const RAW_NAME = /^[\p{L}\p{M}\p{N}.-]+$/u

function refuse(message: string): never {
  throw new OrganizationDomainError(OrganizationDomainErrorCodes.invalidDomain, message)
}

/**
 * The one form a claimed domain is stored, compared and looked up under: trimmed, lower-cased and
 * IDNA-encoded (`Bücher.example` is `xn--bcher-kva.example`), the way `normalizeEmailAddress` writes
 * the domain of an address, so an address's domain and a claim compare as strings. Normalizing a
 * normalized domain changes nothing.
 *
 * Throws `OrganizationDomainError` (`organization_domains.invalid_domain`) for a non-string, a control
 * or white-space character, a trailing dot, a malformed or over-long label, a name over 253 octets, a
 * single label (`localhost`, `com`: no organization owns a top-level name) and an IP address.
 */
export function normalizeOrganizationDomain(input: unknown): string {
  if (typeof input !== 'string') refuse('the domain must be a string')
  if (input.length > MAX_RAW_LENGTH) refuse(`the domain must be at most ${MAX_DOMAIN_OCTETS} octets`)
  const trimmed = input.trim()
  if (trimmed === '' || FORBIDDEN.test(trimmed)) refuse('the domain is empty or has a forbidden character')
  if (trimmed.endsWith('.') || trimmed.startsWith('.')) refuse('the domain starts or ends with a dot')
  if (!RAW_NAME.test(trimmed)) refuse('the domain may hold only letters, digits, hyphens and dots')
  const ascii = domainToASCII(trimmed.normalize('NFC'))
  if (ascii === '') refuse('the domain is not a valid host name')
  if (ascii.length > MAX_DOMAIN_OCTETS) refuse(`the domain must be at most ${MAX_DOMAIN_OCTETS} octets`)
  const labels = ascii.split('.')
  for (const label of labels) {
    if (!LABEL.test(label)) refuse('the domain is not a valid host name')
  }
  if (labels.length < 2) refuse('the domain must have at least two labels')
  // An all-digit last label is an IP address in disguise (`10.0.0.1`).
  if (/^[0-9]+$/.test(labels[labels.length - 1] ?? '')) refuse('the domain is an IP address')
  return ascii
}

/** True when `value` is a domain in its normalized form (what the stores accept). */
export function isNormalizedOrganizationDomain(value: unknown): value is string {
  try {
    return normalizeOrganizationDomain(value) === value
  } catch {
    return false
  }
}

/**
 * The domain part of a normalized email address (`normalizeEmailAddress` writes it lower-cased and
 * IDNA-encoded), or undefined when there is no `@`.
 */
export function domainOfAddress(address: string): string | undefined {
  const at = address.lastIndexOf('@')
  if (at < 0 || at === address.length - 1) return undefined
  return address.slice(at + 1)
}

/** What the free-mail list must answer: a `Set<string>` of lower-case ASCII domains fits. */
export interface FreeMailDomains {
  has(domain: string): boolean
}

/**
 * True when `domain` (normalized) or any parent of it with two labels or more is on `list`:
 * `gmail.com` and `mail.gmail.com` alike, since only the provider controls its subdomains.
 */
export function isFreeMailDomain(domain: string, list: FreeMailDomains): boolean {
  const labels = domain.split('.')
  for (let start = 0; start <= labels.length - 2; start += 1) {
    if (list.has(labels.slice(start).join('.'))) return true
  }
  return false
}
