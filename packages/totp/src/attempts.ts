import { createHash } from 'node:crypto'
import type { RateLimitStore } from '@portcullis/core/local-accounts'
import { TotpError, TotpErrorCodes } from '@portcullis/core/totp'

/** Second-factor attempts allowed per account and window. */
export interface TotpAttemptLimit {
  /** Default 5. */
  readonly limit: number
  /** Default 300 (five minutes). */
  readonly windowSeconds: number
}

export const DEFAULT_TOTP_ATTEMPTS: TotpAttemptLimit = Object.freeze({ limit: 5, windowSeconds: 300 })

function key(accountId: string): string {
  return `totp.account:${createHash('sha256').update(accountId, 'utf8').digest('hex')}`
}

/**
 * Counts second-factor attempts (codes and recovery codes) per account in the shared `RateLimitStore`,
 * so the limit holds across instances; checked before any secret is opened.
 */
export class TotpAttempts {
  readonly #store: RateLimitStore
  readonly #limit: TotpAttemptLimit

  constructor(store: RateLimitStore, limit: TotpAttemptLimit) {
    this.#store = store
    this.#limit = limit
  }

  /** Counts one attempt; throws `totp.rate_limited` (with `retryAfterSeconds`) over the limit. */
  async attempt(accountId: string, now: Date): Promise<void> {
    let decision: Awaited<ReturnType<RateLimitStore['consume']>>
    try {
      decision = await this.#store.consume({ key: key(accountId), ...this.#limit, now })
    } catch (cause) {
      throw new TotpError(TotpErrorCodes.unavailable, 'the rate-limit store failed', { cause })
    }
    if (decision.allowed) return
    const retryAfterSeconds = Math.max(1, Math.ceil((decision.resetAt.getTime() - now.getTime()) / 1000))
    throw new TotpError(TotpErrorCodes.rateLimited, 'too many second-factor attempts', { retryAfterSeconds })
  }

  /** After a success the account's count starts again. */
  async succeeded(accountId: string): Promise<void> {
    await this.#store.reset(key(accountId)).catch(() => undefined)
  }
}
