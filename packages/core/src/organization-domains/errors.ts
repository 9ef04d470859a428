import { type ErrorClass, PortcullisError, type PortcullisErrorOptions } from '../errors/portcullis-error.js'

/** Stable codes of the verified-domain domain. */
export const OrganizationDomainErrorCodes = {
  /** A malformed request: organization, claim id, domain, token, mode or dates. Nothing was written. */
  invalidInput: 'organization_domains.invalid_input',
  /** The domain is not a host name an organization can own (an IP address, a single label, too long). */
  invalidDomain: 'organization_domains.invalid_domain',
  /** The domain (or a parent of it) is a free-mail provider's: no organization can own it. */
  freeMail: 'organization_domains.free_mail',
  /** Another organization holds this domain verified. */
  taken: 'organization_domains.taken',
  /** The organization already claims as many domains as it may. */
  limitReached: 'organization_domains.limit_reached',
  /** No claim with this id for this organization (another organization's claim is not found either). */
  notFound: 'organization_domains.not_found',
  /** The challenge name has no TXT record carrying this claim's token. */
  recordMissing: 'organization_domains.record_missing',
  /** The challenge name carries a verification record, but another claim's token, not this one's. */
  recordMismatch: 'organization_domains.record_mismatch',
  /** DNS could not answer (timeout, refused, SERVFAIL) or the store is down; nothing was changed. */
  unavailable: 'organization_domains.unavailable',
} as const

export type OrganizationDomainErrorCode =
  (typeof OrganizationDomainErrorCodes)[keyof typeof OrganizationDomainErrorCodes]

const CLASS_OF: Readonly<Record<OrganizationDomainErrorCode, ErrorClass>> = {
  'organization_domains.invalid_input': 'invalid-input',
  'organization_domains.invalid_domain': 'invalid-input',
  'organization_domains.free_mail': 'invalid-input',
  'organization_domains.taken': 'conflict',
  'organization_domains.limit_reached': 'conflict',
  'organization_domains.not_found': 'invalid-input',
  'organization_domains.record_missing': 'conflict',
  'organization_domains.record_mismatch': 'conflict',
  'organization_domains.unavailable': 'unavailable',
}

export interface OrganizationDomainErrorOptions extends PortcullisErrorOptions {
  /** For `unavailable`: when a retry may succeed, in seconds (an HTTP layer sends it as `Retry-After`). */
  readonly retryAfterSeconds?: number
}

/**
 * Every deliberate failure of the verified-domain helpers and stores. Messages name fields, never values:
 * no domain, token or address appears in one.
 */
export class OrganizationDomainError extends PortcullisError {
  declare readonly code: OrganizationDomainErrorCode
  declare readonly retryAfterSeconds?: number

  constructor(
    code: OrganizationDomainErrorCode,
    message: string,
    options: OrganizationDomainErrorOptions = {},
  ) {
    super(code, CLASS_OF[code], message, options)
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds
  }

  override toJSON(): ReturnType<PortcullisError['toJSON']> & { retryAfterSeconds?: number } {
    const json = super.toJSON()
    return this.retryAfterSeconds === undefined
      ? json
      : { ...json, retryAfterSeconds: this.retryAfterSeconds }
  }
}

export function invalidDomainInput(message: string): OrganizationDomainError {
  return new OrganizationDomainError(OrganizationDomainErrorCodes.invalidInput, message)
}
