import type { AccountEpochs } from './account-epochs.js'
import { LocalAuthError } from './auth-errors.js'
import type { LocalAuthProfile } from './local-accounts-options.js'
import type { LocalCredentials, LocalSessionView } from './local-credentials.js'
import { type ProviderSessionMatch, providerSessionMatchTags } from './provider-session.js'
import { readLogout, readRefresh, readRevocation } from './request-bodies.js'
import type { SessionManager } from './sessions/session-manager.js'
import { sessionViews } from './sessions/session-view.js'
import type { LocalRequestInfo, SessionSignIn, TokenSignIn } from './sign-in.js'
import { sessionsOf, tokensOf } from './sign-ins.js'
import type { LocalJWKSDocument } from './tokens/signing-key-ring.js'
import type { TokenManager } from './tokens/token-manager.js'

/** A sign-out request as `LocalAccounts.logout` takes it. */
export interface LogoutRequest {
  readonly accountId: string
  readonly body?: unknown
  readonly sessionId?: string | undefined
  readonly credentials: LocalCredentials
  readonly request?: LocalRequestInfo
}

/**
 * What happens to sessions and token families once they exist: sign-out, refresh and revocation, the
 * account's session list, rotation of a session id, and the token profile's published keys. Calling an
 * operation of a transport the profile lacks is `local.invalid_input`.
 */
export class SessionOperations {
  readonly #profile: LocalAuthProfile
  readonly #sessions: SessionManager | undefined
  readonly #tokens: TokenManager | undefined
  readonly #epochs: AccountEpochs
  readonly #clientAddress: (info: LocalRequestInfo | undefined) => string | undefined

  constructor(parts: {
    readonly profile: LocalAuthProfile
    readonly sessions: SessionManager | undefined
    readonly tokens: TokenManager | undefined
    readonly epochs: AccountEpochs
    readonly clientAddress: (info: LocalRequestInfo | undefined) => string | undefined
  }) {
    this.#profile = parts.profile
    this.#sessions = parts.sessions
    this.#tokens = parts.tokens
    this.#epochs = parts.epochs
    this.#clientAddress = parts.clientAddress
  }

  jwks(): LocalJWKSDocument {
    return this.#tokenManager().jwksDocument()
  }

  async revokeProviderSessions(match: ProviderSessionMatch): Promise<number> {
    const tags = providerSessionMatchTags(match)
    if (tags.length === 0 || this.#sessions === undefined) return 0
    return this.#sessions.revokeTagged(tags)
  }

  /** Ends every session, of any account, whose handle carries all of `tags`; how many ended. */
  async revokeTagged(tags: readonly string[]): Promise<number> {
    if (this.#sessions === undefined) return 0
    return this.#sessions.revokeTagged(tags)
  }

  /** A session of the account no sign-in made (see `LocalAccounts.openSession`). */
  async openSession(request: {
    readonly accountId: string
    readonly securityEpoch: number
    readonly handleTags: readonly string[]
    readonly expiresAt: Date
    readonly request?: LocalRequestInfo | undefined
  }): Promise<SessionSignIn> {
    const info = request.request ?? {}
    return this.#sessionManager().create({
      accountId: request.accountId,
      securityEpoch: request.securityEpoch,
      handleTags: request.handleTags,
      expiresAt: request.expiresAt,
      clientAddress: this.#clientAddress(info),
      userAgent: info.userAgent,
    })
  }

  async logout(request: LogoutRequest): Promise<void> {
    const { all } = readLogout(request.body)
    const clientAddress = this.#clientAddress(request.request)
    if (all) {
      await this.#epochs.signOutEverywhere(
        request.accountId,
        'sign_out_everywhere',
        clientAddress,
        request.request?.impersonator,
      )
      return
    }
    const { sessionHandle, familyId } = request.credentials
    if (sessionHandle === undefined && familyId === undefined) {
      throw new LocalAuthError('local.sign_in_required', 'sign-out needs a local session or token')
    }
    if (sessionHandle !== undefined) {
      await this.#sessionManager().revokeByHandle(request.accountId, sessionHandle, 'logout', clientAddress)
    }
    if (familyId !== undefined) await this.#tokenManager().revokeFamily(familyId)
  }

  async refresh(body: unknown, info: LocalRequestInfo): Promise<TokenSignIn> {
    const { refreshToken } = readRefresh(body)
    return this.#tokenManager().refresh(refreshToken, this.#clientAddress(info))
  }

  async revokeToken(body: unknown): Promise<void> {
    const { token } = readRevocation(body)
    await this.#tokenManager().revoke(token)
  }

  async listSessions(accountId: string, currentHandle?: string): Promise<readonly LocalSessionView[]> {
    return sessionViews(await this.#sessionManager().list(accountId), currentHandle)
  }

  async revokeSession(accountId: string, handle: string, info: LocalRequestInfo): Promise<boolean> {
    if (typeof handle !== 'string' || !/^[A-Za-z0-9_-]{16,128}$/.test(handle)) return false
    return this.#sessionManager().revokeByHandle(
      accountId,
      handle,
      'revoked_by_account',
      this.#clientAddress(info),
      info.impersonator,
    )
  }

  async rotateSession(sessionId: string, info: LocalRequestInfo): Promise<SessionSignIn> {
    const check = await this.#sessionManager().check(sessionId)
    if (check.kind !== 'live') throw new LocalAuthError('local.sign_in_required', 'the session is not live')
    return this.#sessionManager().create({
      accountId: check.session.accountId,
      securityEpoch: check.session.securityEpoch,
      replaces: sessionId,
      clientAddress: this.#clientAddress(info),
      userAgent: info.userAgent,
      activeOrganizationId: check.session.activeOrganizationId,
    })
  }

  async setActiveOrganization(
    accountId: string,
    handle: string,
    organizationId: string | null,
  ): Promise<boolean> {
    return this.#sessionManager().setActiveOrganization(accountId, handle, organizationId)
  }

  #sessionManager(): SessionManager {
    return sessionsOf({ profile: this.#profile, sessions: this.#sessions })
  }

  #tokenManager(): TokenManager {
    return tokensOf({ profile: this.#profile, tokens: this.#tokens })
  }
}
