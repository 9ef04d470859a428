import {
  invalid,
  MAX_RATE_LIMIT_KEY_LENGTH,
  requireInstant,
  requireInteger,
  requireRecord,
} from '../store-input.js'

/** The most attempts a rate limit may allow per window. */
export const MAX_RATE_LIMIT = 1_000_000
/** The longest rate-limit window: one day. */
export const MAX_RATE_LIMIT_WINDOW_SECONDS = 86_400

export interface ConsumeRateLimitRequest {
  /** Opaque, chosen by the caller (a digest of what is limited); 1 to 256 characters. */
  readonly key: string
  /** Attempts allowed per window, 1 to 1 000 000. */
  readonly limit: number
  /** Window length for a window this call opens, 1 to 86 400 seconds. */
  readonly windowSeconds: number
  readonly now: Date
}

export interface RateLimitDecision {
  /** Whether this attempt is within the limit (`count <= limit`). */
  readonly allowed: boolean
  /** Attempts counted in the current window, this one included. */
  readonly count: number
  /** When the current window ends and the count starts again (for `Retry-After`). */
  readonly resetAt: Date
}

/**
 * Port: fixed-window attempt counters. A key's window opens with its first attempt and lasts
 * `windowSeconds`; an attempt at or after `resetAt` opens a new window. `consume` counts and decides in
 * one atomic step, so concurrent attempts on any number of app instances are allowed exactly `limit`
 * times per window.
 */
export interface RateLimitStore {
  consume(request: ConsumeRateLimitRequest): Promise<RateLimitDecision>
  /** Forgets the key's window (after a successful sign-in, for instance). */
  reset(key: string): Promise<void>
}

const CONTROL = /\p{Cc}|\p{Cs}/u

/** A rate-limit key: a string of 1 to 256 characters without control characters. */
export function requireRateLimitKey(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_RATE_LIMIT_KEY_LENGTH) {
    throw invalid(`key must be a string of 1 to ${MAX_RATE_LIMIT_KEY_LENGTH} characters`)
  }
  if (CONTROL.test(value)) throw invalid('key must not contain control characters')
  return value
}

/** `consume` input, validated and copied. */
export function validateConsumeRateLimit(request: unknown): ConsumeRateLimitRequest {
  const fields = requireRecord(request, 'request')
  return {
    key: requireRateLimitKey(fields.key),
    limit: requireInteger(fields.limit, 'limit', 1, MAX_RATE_LIMIT),
    windowSeconds: requireInteger(fields.windowSeconds, 'windowSeconds', 1, MAX_RATE_LIMIT_WINDOW_SECONDS),
    now: requireInstant(fields.now, 'now'),
  }
}

/** The decision for a counted attempt. */
export function rateLimitDecision(count: number, limit: number, resetAt: Date): RateLimitDecision {
  return Object.freeze({ allowed: count <= limit, count, resetAt: new Date(resetAt.getTime()) })
}
