import { randomUUID } from 'node:crypto'
import type { AccountStore } from '../../accounts/port.js'
import { VerifiedCache } from '../../cache/verified-cache.js'
import { createJwtVerifier } from '../../workload-jwt/jwt-verifier.js'
import { LocalAuthError } from '../auth-errors.js'
import type { LocalTokenOptions } from '../local-accounts-options.js'
import { digestOpaqueToken, newOpaqueToken } from '../opaque-token.js'
import { defined, type LocalRuntime } from '../runtime.js'
import { redactedSignIn, type TokenSignIn } from '../sign-in.js'
import { issueAccessToken, SECURITY_EPOCH_CLAIM, SESSION_HANDLE_CLAIM } from './access-token.js'
import { LocalJWKSProvider } from './local-jwks-provider.js'
import type { RefreshTokenStore } from './refresh-token-store.js'
import type { LocalJWKSDocument } from './signing-key-ring.js'

/** A verified local access token (none of these facts is secret). */
export interface VerifiedAccessToken {
  readonly accountId: string
  readonly securityEpoch: number
  readonly jti: string
  readonly kid: string
  /** The refresh token family (sign-in) the token was issued to. */
  readonly familyId: string | undefined
  /** `auth_time` (seconds since the epoch): when the user signed in with the password; absent if unsigned. */
  readonly authTime: number | undefined
  readonly expiresAt: Date
}

export type AccessTokenCheck =
  | { readonly kind: 'verified'; readonly token: VerifiedAccessToken }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'unavailable'; readonly reason: string; readonly retryAfterSeconds?: number }

const REFRESH_TOKEN_BYTES = 32
const OPAQUE = /^[A-Za-z0-9_-]{22,512}$/
const CLIENT_ID = 'local'
const MAX_TOKEN_BYTES = 16_384

function refreshInvalid(): LocalAuthError {
  return new LocalAuthError('local.refresh_invalid', 'the refresh token is not valid')
}

/**
 * Token pairs: short-lived access JWTs (`issueAccessToken`, verified in process through the
 * workload-JWT verifier and a `LocalJWKSProvider`) and opaque rotating refresh tokens stored as digests in
 * families. Every access token carries the account's security epoch (`sec_epoch`) and its family (`sid`).
 */
export class TokenManager {
  readonly jwks: LocalJWKSProvider
  readonly #options: LocalTokenOptions
  readonly #store: RefreshTokenStore
  readonly #accounts: AccountStore
  readonly #runtime: LocalRuntime
  readonly #verify: (token: string) => ReturnType<ReturnType<typeof createJwtVerifier>>
  readonly #cache: VerifiedCache<VerifiedAccessToken> | undefined

  constructor(
    options: LocalTokenOptions,
    store: RefreshTokenStore,
    accounts: AccountStore,
    runtime: LocalRuntime,
  ) {
    this.#options = options
    this.#store = store
    this.#accounts = accounts
    this.#runtime = runtime
    this.jwks = new LocalJWKSProvider({
      ring: options.ring,
      issuer: options.issuer,
      jwksUri: options.jwksUri,
      clock: runtime.clock,
      allowInsecureLoopback: options.allowInsecureLoopback === true,
    })
    const algorithms = ['EdDSA', 'ES256'] as const
    this.jwks.register({ issuer: options.issuer, jwksUri: options.jwksUri, algorithms })
    this.#verify = createJwtVerifier({
      issuer: options.issuer,
      audiences: new Set([options.audience]),
      jwksUri: options.jwksUri,
      jwks: this.jwks,
      algorithms,
      tokenTypes: ['at+jwt'],
      typOptional: false,
      toleratedHeaders: [],
      requiredIdentifiers: ['jti'],
      subjectClaim: 'sub',
      clockSkewSeconds: 30,
      maxLifetimeSeconds: options.ring.maxAccessTokenLifetimeSeconds,
      maxTokenBytes: MAX_TOKEN_BYTES,
      clock: runtime.clock,
    })
    const entries = options.verifiedTokenCacheEntries ?? 10_000
    this.#cache = entries === 0 ? undefined : new VerifiedCache(entries, 3_600_000, runtime.clock)
  }

  /** The public keys, as served at the JWKS URL. */
  jwksDocument(): LocalJWKSDocument {
    return this.#options.ring.jwks(new Date(this.#runtime.clock()))
  }

  /** The issuer, so a shared bearer header can tell our tokens from others'. */
  get issuer(): string {
    return this.#options.issuer
  }

  /**
   * Signature, header and claims of an access token (the epoch is checked by the caller). A token
   * verified before answers from the bounded cache, synchronously.
   */
  verify(token: string): AccessTokenCheck | Promise<AccessTokenCheck> {
    const key = this.#cache === undefined ? undefined : VerifiedCache.keyOf(token)
    const hit = key === undefined ? undefined : this.#cache?.get(key)
    if (hit !== undefined) return { kind: 'verified', token: hit }
    return this.#verify(token).then((result): AccessTokenCheck => {
      if (result.kind !== 'verified') return result
      const payload = result.jwt.payload
      const epoch = payload[SECURITY_EPOCH_CLAIM]
      if (typeof epoch !== 'number' || !Number.isSafeInteger(epoch) || epoch < 0) {
        return { kind: 'invalid', reason: 'local-token: bad sec_epoch' }
      }
      const sid = payload[SESSION_HANDLE_CLAIM]
      if (sid !== undefined && typeof sid !== 'string')
        return { kind: 'invalid', reason: 'local-token: bad sid' }
      const authTime = payload.auth_time
      const verified: VerifiedAccessToken = Object.freeze({
        accountId: result.claims.subject,
        securityEpoch: epoch,
        jti: payload.jti as string,
        kid: result.key.kid,
        familyId: sid,
        authTime: typeof authTime === 'number' && Number.isSafeInteger(authTime) ? authTime : undefined,
        expiresAt: new Date(result.claims.expiresAt * 1000),
      })
      if (key !== undefined) this.#cache?.set(key, verified, result.claims.expiresAt * 1000)
      return { kind: 'verified', token: verified }
    })
  }

  /** Starts a refresh token family for the account and returns the first pair. */
  async issue(accountId: string, securityEpoch: number, amr?: readonly string[]): Promise<TokenSignIn> {
    const now = this.#runtime.clock()
    const familyId = randomUUID()
    const refreshToken = newOpaqueToken(REFRESH_TOKEN_BYTES, this.#runtime.random)
    const absolute = now + this.#runtime.settings.refreshFamilyMs
    const expiresAt = new Date(Math.min(now + this.#runtime.settings.refreshTokenMs, absolute))
    await this.#store.createFamily({
      familyId,
      accountId,
      securityEpoch,
      createdAt: new Date(now),
      absoluteExpiresAt: new Date(absolute),
      token: { digest: digestOpaqueToken(refreshToken), expiresAt },
    })
    return this.#pair(accountId, securityEpoch, familyId, refreshToken, expiresAt, new Date(now), amr)
  }

  /**
   * Rotates a refresh token: the presented one is used up and a new pair returned. A token used before
   * revokes its whole family (`refresh.reuse_detected`); a family older than the account's security epoch
   * is revoked too. Every refusal is `local.refresh_invalid`.
   */
  async refresh(presented: string, clientAddress: string | undefined): Promise<TokenSignIn> {
    if (!OPAQUE.test(presented)) throw refreshInvalid()
    const now = this.#runtime.clock()
    const next = newOpaqueToken(REFRESH_TOKEN_BYTES, this.#runtime.random)
    const outcome = await this.#store.rotate({
      presentedDigest: digestOpaqueToken(presented),
      next: {
        digest: digestOpaqueToken(next),
        expiresAt: new Date(now + this.#runtime.settings.refreshTokenMs),
      },
      now: new Date(now),
    })
    if (outcome.outcome === 'reused') {
      this.#runtime.emit(
        'refresh.reuse_detected',
        defined({ accountId: outcome.accountId, familyId: outcome.familyId, clientAddress }),
      )
      throw refreshInvalid()
    }
    if (outcome.outcome === 'invalid') throw refreshInvalid()
    const { family } = outcome
    const account = await this.#accounts.getAccount(family.accountId)
    if (account === null || account.securityEpoch !== family.securityEpoch) {
      await this.#store.revoke({ familyId: family.familyId, now: new Date(now) })
      throw refreshInvalid()
    }
    this.#runtime.epochs.remember(account.accountId, account.securityEpoch)
    return this.#pair(
      account.accountId,
      account.securityEpoch,
      family.familyId,
      next,
      outcome.expiresAt,
      family.createdAt,
    )
  }

  /** RFC 7009: revokes the family of a refresh token; unknown or malformed tokens are not an error. */
  async revoke(token: string): Promise<boolean> {
    if (!OPAQUE.test(token)) return false
    return this.#store.revoke({ digest: digestOpaqueToken(token), now: new Date(this.#runtime.clock()) })
  }

  /** Revokes one family (sign-out of a token sign-in). */
  async revokeFamily(familyId: string): Promise<boolean> {
    return this.#store.revoke({ familyId, now: new Date(this.#runtime.clock()) })
  }

  /** Revokes every family of the account. */
  async revokeAccount(accountId: string): Promise<number> {
    return this.#store.revokeAccount({ accountId, now: new Date(this.#runtime.clock()) })
  }

  async #pair(
    accountId: string,
    securityEpoch: number,
    familyId: string,
    refreshToken: string,
    refreshExpiresAt: Date,
    signedInAt: Date,
    amr?: readonly string[],
  ): Promise<TokenSignIn> {
    const now = new Date(this.#runtime.clock())
    const access = await issueAccessToken({
      ring: this.#options.ring,
      issuer: this.#options.issuer,
      audience: this.#options.audience,
      subject: accountId,
      lifetimeSeconds: this.#runtime.settings.accessTokenSeconds,
      securityEpoch,
      sessionBound: familyId,
      clientId: CLIENT_ID,
      authTime: signedInAt.getTime() <= now.getTime() ? signedInAt : now,
      ...(amr === undefined || amr.length === 0 ? {} : { amr }),
      now,
      randomBytes: this.#runtime.random,
    })
    return redactedSignIn(
      {
        transport: 'tokens',
        accountId,
        familyId,
        access_token: access.token,
        refresh_token: refreshToken,
        token_type: 'Bearer',
        // exp - iat, exactly the configured lifetime (iat is the issue time in whole seconds).
        expires_in: Math.round((access.expiresAt.getTime() - access.issuedAt.getTime()) / 1000),
        refreshExpiresAt: new Date(refreshExpiresAt.getTime()),
      },
      ['access_token', 'refresh_token'],
    )
  }
}
