import { isPortcullisError } from '@portcullis/core/errors'
import type { LocalRequestInfo } from '@portcullis/core/local-accounts'
import { retryAfterFor } from '@portcullis/express'
import express, { type Request, type RequestHandler, type Response } from 'express'

// What the page forms' handlers share: parsing, reading fields, the request's facts, refusals.

/**
 * The largest form body a page accepts: 4 KiB. A larger one fails the parser with 413, which the
 * security instance's error handler answers as problem+json `request.body_too_large` (an HTML page with
 * the same status for browsers).
 */
export const FORM_MAX_BODY_BYTES = 4 * 1024

/** The parser of every page form: `application/x-www-form-urlencoded`, at most `FORM_MAX_BODY_BYTES`. */
export function formBody(): RequestHandler {
  return express.urlencoded({ extended: false, limit: FORM_MAX_BODY_BYTES, parameterLimit: 20 })
}

/** `return_to` stays on this site: a path, never `//host` or a scheme. */
export function safeReturn(value: unknown): string {
  if (typeof value !== 'string' || value.length > 512 || !/^\/(?![/\\])/.test(value)) return '/'
  return value
}

/** What the service needs to know about the request (client address, user agent). */
export function requestInfo(request: Request): LocalRequestInfo {
  return {
    peerAddress: request.socket.remoteAddress,
    forwardedFor: request.headers['x-forwarded-for'],
    userAgent: request.headers['user-agent'],
    // An impersonation's acts on the account's sessions name the administrator in their events.
    impersonator: (request.security as typeof request.security | undefined)?.principal?.impersonator,
  }
}

export const field = (request: Request, name: string): string => {
  const value = ((request.body ?? {}) as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : ''
}

/**
 * The cause's own `Retry-After` (a busy password hasher, a database outage), set before the refusal is
 * shown on its page; `sendPage` gives a 503 or 429 without one the default of its status.
 */
export function retryHint(response: Response, error: unknown): void {
  const seconds = (error as { retryAfterSeconds?: unknown } | null)?.retryAfterSeconds
  const value = typeof seconds === 'number' ? retryAfterFor(0, seconds) : undefined
  if (value !== undefined) response.setHeader('Retry-After', value)
}

/** A flow's client-safe detail as a sentence of the page. */
const sentence = (detail: unknown, fallback: string) =>
  typeof detail === 'string' ? (detail.endsWith('.') ? detail : `${detail}.`) : fallback

/** A refusal of the service shown on the form again: status and a sentence (never the input). */
export function refusal(error: unknown): { status: number; message: string } {
  if (!isPortcullisError(error)) throw error
  const detail = (error as { detail?: unknown }).detail
  switch (error.code) {
    case 'local.invalid_credentials':
      return { status: 401, message: 'Wrong username or password.' }
    case 'local.rate_limited':
      return { status: 429, message: 'Too many attempts. Wait a few minutes and try again.' }
    case 'account.disabled':
      return { status: 403, message: 'This account is disabled: ask the people who run this site.' }
    case 'local.hashing_busy':
      return { status: 503, message: 'The server is busy. Try again in a moment.' }
    case 'local.username_taken':
      return { status: 409, message: 'That username is taken.' }
    case 'totp.invalid_code':
      return { status: 401, message: 'That code is wrong or was already used.' }
    case 'totp.invalid_recovery_code':
      return { status: 401, message: 'That recovery code is wrong or was already used.' }
    case 'totp.invalid_input':
      return { status: 400, message: 'Enter the six digits (or the recovery code) as shown.' }
    case 'totp.pending_invalid':
    case 'local.sign_in_required':
      return { status: 401, message: 'The sign-in expired: enter your password again.' }
    case 'totp.rate_limited':
      return { status: 429, message: 'Too many codes tried. Wait a few minutes and try again.' }
    case 'totp.not_enrolled':
    case 'totp.already_enabled':
    case 'totp.enrollment_changed':
      return { status: 409, message: 'Two-step sign-in changed meanwhile: start again.' }
    case 'step-up.required':
      return { status: 401, message: 'Confirm with your password or a passkey first.' }
    case 'step-up.impersonated':
      return {
        status: 403,
        message:
          'Refused during an impersonation: the password, addresses and factors of the account cannot be changed, nor the account deleted. End the impersonation first.',
      }
    case 'totp.unavailable':
    case 'passkey.unavailable':
    case 'step-up.unavailable':
    case 'local.password_screen_unavailable':
      return { status: 503, message: 'A dependency did not answer. Try again in a moment.' }
    case 'local.invalid_username':
    case 'local.invalid_password':
    case 'local.password_screened':
      return { status: 400, message: typeof detail === 'string' ? detail : error.message }
    case 'account_email.invalid_code':
      return { status: 400, message: 'That code is wrong, expired or already used.' }
    case 'account_email.rate_limited':
      return { status: 429, message: 'Too many requests for now. Wait a while and try again.' }
    case 'account_email.invalid_input':
      return { status: 400, message: 'Enter an email address such as ada@example.com.' }
    case 'account_email.unavailable':
      return { status: 503, message: 'A dependency did not answer. Try again in a moment.' }
    case 'account_email.account_gone':
      return { status: 401, message: 'The account is no longer there: sign in again.' }
    case 'account_email.second_factor_required':
      return { status: 403, message: sentence(detail, error.message) }
    case 'account_email.reset_pending_invalid':
    case 'account_email.same_address':
      return { status: 400, message: sentence(detail, error.message) }
    case 'account_email.address_taken':
    case 'account_email.too_many_addresses':
    case 'account_email.address_exists':
    case 'account_email.address_verified':
    case 'account_email.address_unverified':
    case 'account_email.primary_address':
    case 'account_email.last_sign_in_address':
      return { status: 409, message: sentence(detail, error.message) }
    case 'account_email.address_not_found':
      return { status: 400, message: sentence(detail, error.message) }
    case 'email.invalid_address':
      return { status: 400, message: 'Enter an email address such as ada@example.com.' }
    default:
      throw error
  }
}
