import { createHash } from 'node:crypto'
import { LocalAuthError } from '../auth-errors.js'
import type { LoginRateLimit } from '../local-accounts-options.js'
import type { RateLimitDecision, RateLimitStore } from './rate-limit-store.js'

/** The store key of a limited subject: a digest, so the store never holds usernames or addresses. */
function key(kind: 'account' | 'address', subject: string): string {
  return `login.${kind}:${createHash('sha256').update(subject, 'utf8').digest('hex')}`
}

/**
 * Sign-in attempt limits, checked before any password hashing: one counter per (normalized) username and
 * one per client address, both in the shared `RateLimitStore`, so the limits hold across instances.
 */
export class LoginThrottle {
  readonly #store: RateLimitStore
  readonly #perAccount: LoginRateLimit
  readonly #perAddress: LoginRateLimit
  readonly #clock: () => number

  constructor(
    store: RateLimitStore,
    perAccount: LoginRateLimit,
    perAddress: LoginRateLimit,
    clock: () => number,
  ) {
    this.#store = store
    this.#perAccount = perAccount
    this.#perAddress = perAddress
    this.#clock = clock
  }

  /**
   * Counts one attempt for the username (when given) and the address (when known). Throws
   * `local.rate_limited` with `retryAfterSeconds` (the later window end) when either is over its limit.
   */
  async attempt(username: string | undefined, clientAddress: string | undefined): Promise<void> {
    const now = new Date(this.#clock())
    const checks: Promise<RateLimitDecision>[] = []
    if (username !== undefined) {
      checks.push(this.#store.consume({ key: key('account', username), ...this.#perAccount, now }))
    }
    if (clientAddress !== undefined) {
      checks.push(this.#store.consume({ key: key('address', clientAddress), ...this.#perAddress, now }))
    }
    const decisions = await Promise.all(checks)
    let resetAt = 0
    for (const decision of decisions) {
      if (!decision.allowed) resetAt = Math.max(resetAt, decision.resetAt.getTime())
    }
    if (resetAt === 0) return
    const retryAfterSeconds = Math.max(1, Math.ceil((resetAt - now.getTime()) / 1000))
    throw new LocalAuthError('local.rate_limited', 'too many sign-in attempts', { retryAfterSeconds })
  }

  /** After a successful sign-in: the username's counter starts again (the address's does not). */
  async succeeded(username: string): Promise<void> {
    await this.#store.reset(key('account', username))
  }
}
