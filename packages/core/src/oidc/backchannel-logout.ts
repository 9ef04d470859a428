import { createHash } from 'node:crypto'
import { integerBetween, type OptionsShape, readOptions } from '../errors/options.js'
import { isPortcullisError } from '../errors/portcullis-error.js'
import type { ProviderSessionMatch } from '../local-accounts/provider-session.js'
import type { RateLimitStore } from '../local-accounts/rate-limits/rate-limit-store.js'
import { logoutTokenRejected, OIDCError, OIDCErrorCodes } from './errors.js'
import type { VerifiedLogoutToken } from './logout-token.js'

export interface BackchannelLogoutOptions {
  /** Verifies logout tokens with the provider registration's keys and rules (`OAuthLifecycleService`). */
  readonly lifecycle: {
    verifyLogoutToken(
      provider: string,
      token: unknown,
      options: { readonly maxAgeSeconds: number },
    ): Promise<VerifiedLogoutToken>
  }
  /** Ends the matching local sessions (`LocalAccounts.revokeProviderSessions`); answers how many. */
  readonly revokeSessions: (match: ProviderSessionMatch) => Promise<number>
  /**
   * Where used `jti`s are remembered, shared by every instance (the `RateLimitStore` of local accounts:
   * a window of one attempt per `jti`), so a replayed logout token is refused on any instance.
   */
  readonly replay: RateLimitStore
  /** Logout tokens issued longer ago than this are refused (and their `jti`s need no longer be kept). Default 300; 30 to 3600. */
  readonly maxAgeSeconds?: number
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly clock?: () => number
}

const OPTIONS: OptionsShape<BackchannelLogoutOptions> = {
  lifecycle: {
    required: true,
    kind: 'object',
    check: (value) =>
      typeof (value as { verifyLogoutToken?: unknown }).verifyLogoutToken === 'function'
        ? undefined
        : 'must be an OAuthLifecycleService',
  },
  revokeSessions: { required: true, kind: 'function' },
  replay: { required: true, kind: 'object' },
  maxAgeSeconds: { kind: 'number', check: integerBetween(30, 3600) },
  clock: { kind: 'function' },
}

/** What a handled logout did. */
export interface BackchannelLogoutResult {
  readonly provider: string
  /** Local sessions ended (0 is fine: the user may have signed out already). */
  readonly sessions: number
}

/** The form fields of the request: exactly one `logout_token`. */
function logoutTokenOf(form: unknown): string {
  if (form instanceof URLSearchParams) {
    const all = form.getAll('logout_token')
    if (all.length !== 1) throw logoutTokenRejected('logout_token-count')
    return all[0] as string
  }
  const value = (form as { logout_token?: unknown } | null | undefined)?.logout_token
  if (typeof value !== 'string')
    throw logoutTokenRejected(Array.isArray(value) ? 'logout_token-count' : 'missing')
  return value
}

/**
 * OpenID Connect Back-Channel Logout 1.0, relying-party side, framework-neutral: the HTTP adapter hands
 * it the provider name of `POST {base}/auth/oauth/{provider}/backchannel-logout` and the parsed form body.
 * The logout token is verified (see `verifyLogoutToken`), its `jti` is consumed once across every
 * instance (a replay is refused), and the local sessions established from that provider session (by
 * `sid`) or subject (by `sub`) end; their stores announce it, so every instance's cache drops them.
 * Refusals are `oidc.logout_token.rejected` (400), a JWKS or store outage is unavailable (503).
 */
export class BackchannelLogout {
  readonly #options: BackchannelLogoutOptions
  readonly #maxAgeSeconds: number
  readonly #clock: () => number

  constructor(options: BackchannelLogoutOptions) {
    readOptions(options, 'BackchannelLogout', OPTIONS)
    this.#options = options
    this.#maxAgeSeconds = options.maxAgeSeconds ?? 300
    this.#clock = options.clock ?? Date.now
  }

  async handle(request: {
    readonly provider: string
    readonly form: unknown
  }): Promise<BackchannelLogoutResult> {
    const token = logoutTokenOf(request.form)
    const verified = await this.#options.lifecycle.verifyLogoutToken(request.provider, token, {
      maxAgeSeconds: this.#maxAgeSeconds,
    })
    await this.#consume(request.provider, verified)
    const sessions = await this.#options.revokeSessions({
      issuer: verified.issuer,
      subject: verified.subject,
      sessionId: verified.sessionId,
    })
    return { provider: request.provider, sessions }
  }

  /** One use per `(provider, iss, jti)` across every instance, for as long as the token could be accepted. */
  async #consume(provider: string, token: VerifiedLogoutToken): Promise<void> {
    const key = createHash('sha256')
      .update(`portcullis.backchannel-logout\u0000${provider}\u0000${token.issuer}\u0000${token.jti}`)
      .digest('base64url')
    let allowed: boolean
    try {
      const decision = await this.#options.replay.consume({
        key: `bcl:${key}`,
        limit: 1,
        // Covers the token's whole acceptable life: issued up to maxAge ago, plus skew either way.
        windowSeconds: this.#maxAgeSeconds * 2 + 120,
        now: new Date(this.#clock()),
      })
      allowed = decision.allowed
    } catch (error) {
      if (isPortcullisError(error) && error.errorClass === 'unavailable') throw error
      throw new OIDCError(OIDCErrorCodes.dependencyUnavailable, 'the replay store failed', { cause: error })
    }
    if (!allowed) throw logoutTokenRejected('replayed')
  }
}
