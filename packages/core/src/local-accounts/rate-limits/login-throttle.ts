import { createHash } from 'node:crypto'
import type { Instrumentation } from '../../instrumentation/instrumentation.js'
import { LocalAuthError } from '../auth-errors.js'
import type { LoginRateLimit } from '../local-accounts-options.js'
import { clientRateLimitKey } from './rate-limit-key.js'
import type { RateLimitDecision, RateLimitStore } from './rate-limit-store.js'

/** The store key of a limited subject: a digest, so the store never holds usernames or addresses. */
function key(kind: 'account' | 'address', subject: string): string {
  return `login.${kind}:${createHash('sha256').update(subject, 'utf8').digest('hex')}`
}

/** The limits a `LoginThrottle` applies. */
export interface LoginThrottleLimits {
  readonly perAccount: LoginRateLimit
  readonly perAddress: LoginRateLimit
  /** How many leading bits of an IPv6 address name one client (`clientRateLimitKey`). */
  readonly ipv6PrefixLength: number
  readonly clock: () => number
  /** Told of every limit a refused attempt was over (`login.address`, `login.account`). */
  readonly instrumentation?: Instrumentation | undefined
}

/**
 * Sign-in attempt limits, checked before any password hashing: one counter per (normalized) username and
 * one per client (`clientRateLimitKey`: an IPv4 address, an IPv6 network, or the one key every request
 * without a known address shares), both in the shared `RateLimitStore`, so the limits hold across instances.
 */
export class LoginThrottle {
  readonly #store: RateLimitStore
  readonly #limits: LoginThrottleLimits

  constructor(store: RateLimitStore, limits: LoginThrottleLimits) {
    this.#store = store
    this.#limits = limits
  }

  /**
   * Counts one attempt for the username (when given) and for the client. A missing or unreadable address
   * is never a reason to skip the per-address limit: such attempts count together under one key. Throws
   * `local.rate_limited` with `retryAfterSeconds` (the later window end) when either is over its limit.
   */
  async attempt(username: string | undefined, clientAddress: string | undefined): Promise<void> {
    const { perAccount, perAddress, ipv6PrefixLength, clock } = this.#limits
    const now = new Date(clock())
    const client = clientRateLimitKey(clientAddress, { ipv6PrefixLength })
    const checks: Promise<RateLimitDecision>[] = [
      this.#store.consume({ key: key('address', client), ...perAddress, now }),
    ]
    if (username !== undefined) {
      checks.push(this.#store.consume({ key: key('account', username), ...perAccount, now }))
    }
    const decisions = await Promise.all(checks)
    let resetAt = 0
    for (const [index, decision] of decisions.entries()) {
      if (decision.allowed) continue
      resetAt = Math.max(resetAt, decision.resetAt.getTime())
      this.#hit(index === 0 ? 'login.address' : 'login.account')
    }
    if (resetAt === 0) return
    const retryAfterSeconds = Math.max(1, Math.ceil((resetAt - now.getTime()) / 1000))
    throw new LocalAuthError('local.rate_limited', 'too many sign-in attempts', { retryAfterSeconds })
  }

  #hit(limiter: string): void {
    try {
      this.#limits.instrumentation?.rateLimitHit(limiter)
    } catch {
      // Instrumentation must not change what a sign-in answers.
    }
  }

  /** After a successful sign-in: the username's counter starts again (the address's does not). */
  async succeeded(username: string): Promise<void> {
    await this.#store.reset(key('account', username))
  }
}
