// A message is checked whole before a template sees it: its recipient, its locale, its code, every
// link (absolute http or https only) and every text a template may put in a subject or body.
import { MailError, MailErrorCodes } from './errors.js'
import { requireHeaderText, requireMailAddress, requireMailbox } from './headers.js'
import {
  MAIL_MESSAGE_KINDS,
  type MailFactor,
  type MailMessage,
  SECURITY_CHANGE_TYPES,
  type SecurityChange,
} from './messages.js'

const LOCALE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/
/** Letters, digits, spaces and hyphens: what a person can read out and type. */
const CODE = /^[A-Za-z0-9](?:[A-Za-z0-9 -]{2,62}[A-Za-z0-9])$/
const FACTORS: readonly MailFactor[] = ['passkey', 'totp', 'recovery-codes']
const MAX_LINK = 2048
const MAX_LABEL = 200

function invalid(field: string, why: string): MailError {
  return new MailError(MailErrorCodes.invalidMessage, `${field} ${why}`, { field })
}

function requireLink(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length > MAX_LINK) {
    throw invalid(field, `must be a URL of at most ${MAX_LINK} characters`)
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw invalid(field, 'must be an absolute URL')
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '') {
    throw invalid(field, 'must be an http(s) URL without credentials')
  }
  return url.href
}

function optionalLink(value: unknown, field: string): string | undefined {
  return value === undefined ? undefined : requireLink(value, field)
}

function requirePositiveInteger(value: unknown, field: string, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw invalid(field, `must be an integer from 1 to ${max}`)
  }
  return value
}

function requireChange(value: unknown): SecurityChange {
  const change = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>
  const type = change.type as SecurityChange['type']
  if (!SECURITY_CHANGE_TYPES.includes(type)) throw invalid('change.type', 'is not a known security change')
  switch (type) {
    case 'password-changed':
    case 'password-reset':
      return { type }
    case 'address-added':
    case 'address-changed':
    case 'address-removed':
      return { type, address: requireMailAddress(change.address, 'change.address') }
    case 'factor-added':
    case 'factor-removed': {
      const factor = change.factor as MailFactor
      if (!FACTORS.includes(factor)) throw invalid('change.factor', 'is not passkey, totp or recovery-codes')
      return change.label === undefined
        ? { type, factor }
        : { type, factor, label: requireHeaderText(change.label, 'change.label', MAX_LABEL) }
    }
    case 'identity-linked':
    case 'identity-unlinked':
      return { type, provider: requireHeaderText(change.provider, 'change.provider', MAX_LABEL) }
    case 'mcp-client-connected':
      return { type, client: requireHeaderText(change.client, 'change.client', MAX_LABEL) }
  }
}

function withOptional<T extends object>(base: T, extra: Record<string, string | undefined>): T {
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) }
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) out[key] = value
  return out as T
}

/**
 * A checked copy of a message, holding only the members its kind defines. Throws a `MailError`
 * (`mail.invalid_address`, `mail.header_injection` or `mail.invalid_message`, never retryable) naming
 * the field at fault.
 */
export function validateMailMessage(message: MailMessage): MailMessage {
  if (typeof message !== 'object' || message === null) throw invalid('message', 'must be an object')
  const raw = message as unknown as Record<string, unknown>
  const kind = raw.kind as MailMessage['kind']
  if (!MAIL_MESSAGE_KINDS.includes(kind)) throw invalid('kind', 'is not a known message kind')
  const to = requireMailbox(raw.to, 'to')
  if (typeof raw.locale !== 'string' || !LOCALE.test(raw.locale) || raw.locale.length > 35) {
    throw invalid('locale', 'must be a BCP 47 language tag')
  }
  const base = { to, locale: raw.locale }
  switch (kind) {
    case 'verification':
    case 'password-reset':
    case 'email-change-verification':
    case 'sign-in-code': {
      if (typeof raw.code !== 'string' || !CODE.test(raw.code)) {
        throw invalid('code', 'must be 4 to 64 letters, digits, spaces or hyphens')
      }
      const validForMinutes = requirePositiveInteger(raw.validForMinutes, 'validForMinutes', 60 * 24 * 7)
      return withOptional(
        { kind, ...base, code: raw.code, validForMinutes },
        { link: optionalLink(raw.link, 'link') },
      )
    }
    case 'email-change-notice':
      return {
        kind,
        ...base,
        newAddress: requireMailAddress(raw.newAddress, 'newAddress'),
        undoLink: requireLink(raw.undoLink, 'undoLink'),
        undoValidForDays: requirePositiveInteger(raw.undoValidForDays, 'undoValidForDays', 90),
      }
    case 'security-notification': {
      const occurredAt = raw.occurredAt
      if (!(occurredAt instanceof Date) || Number.isNaN(occurredAt.getTime())) {
        throw invalid('occurredAt', 'must be a valid Date')
      }
      return withOptional(
        { kind, ...base, change: requireChange(raw.change), occurredAt: new Date(occurredAt.getTime()) },
        { reviewLink: optionalLink(raw.reviewLink, 'reviewLink') },
      )
    }
    case 'existing-account-sign-up':
      return withOptional(
        { kind, ...base },
        {
          signInLink: optionalLink(raw.signInLink, 'signInLink'),
          resetLink: optionalLink(raw.resetLink, 'resetLink'),
        },
      )
    case 'unknown-account-reset':
      return withOptional({ kind, ...base }, { signUpLink: optionalLink(raw.signUpLink, 'signUpLink') })
    case 'invitation':
      if (typeof raw.code !== 'string' || !CODE.test(raw.code)) {
        throw invalid('code', 'must be 4 to 64 letters, digits, spaces or hyphens')
      }
      return {
        kind,
        ...base,
        organizationName: requireHeaderText(raw.organizationName, 'organizationName', MAX_LABEL),
        code: raw.code,
        link: requireLink(raw.link, 'link'),
        validForDays: requirePositiveInteger(raw.validForDays, 'validForDays', 30),
      }
  }
}
