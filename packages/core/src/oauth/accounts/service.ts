import { type OptionsShape, readOptions } from '../../errors/options.js'
import { ConfigurationError } from '../../errors/portcullis-error.js'
import { OAuthAccountError, OAuthAccountErrorCodes } from './errors.js'
import { requireId } from './input.js'
import type { OAuthAccountStore } from './port.js'
import type { RevocationTokenType, StoredProviderTokens } from './records.js'
import { requireNow } from './request-input.js'
import type { TokenEndpointClient, TokenEndpointTokens } from './token-endpoint.js'
import { ProviderTokenSet } from './token-set.js'

export interface OAuthAccountServiceOptions {
  readonly store: OAuthAccountStore
  readonly tokenEndpoint: TokenEndpointClient
  /** Default `() => new Date()`. */
  readonly clock?: () => Date
}

const SERVICE_OPTIONS: OptionsShape<OAuthAccountServiceOptions> = {
  store: { required: true, kind: 'object', code: 'oauth.account.service_options' },
  tokenEndpoint: { required: true, kind: 'object', code: 'oauth.account.service_options' },
  clock: { kind: 'function' },
}

export type RefreshOutcome =
  /** Fresh tokens: from this caller's refresh, or the winner's when another refresher got there first. */
  | { readonly status: 'refreshed'; readonly tokens: StoredProviderTokens }
  /** The user must authorize again; an `invalid-grant` refresh has discarded the dead tokens. */
  | {
      readonly status: 'reauthorization-required'
      readonly reason: 'no-tokens' | 'no-refresh-token' | 'invalid-grant'
    }

export type RevokeOutcome =
  | { readonly status: 'revoked' }
  | { readonly status: 'nothing-to-revoke' }
  /** Revocation failed upstream; the tokens left the vault and wait, encrypted, in a retry record. */
  | {
      readonly status: 'revocation-pending'
      readonly retryId: string
      readonly failedTokenTypes: readonly RevocationTokenType[]
    }

const MAX_EXPIRES_IN = 315_360_000
const MAX_RACE_ATTEMPTS = 3

/**
 * Refreshes and revokes retained provider tokens. Refresh is read, call the provider outside any
 * store transaction, then compare-and-swap: concurrent callers in one process share one provider
 * call (single flight), and across processes the CAS loser re-reads and returns the winner's tokens.
 */
export class OAuthAccountService {
  readonly #store: OAuthAccountStore
  readonly #endpoint: TokenEndpointClient
  readonly #clock: () => Date
  readonly #inFlight = new Map<string, Promise<RefreshOutcome>>()

  constructor(options: OAuthAccountServiceOptions) {
    readOptions(options, 'OAuthAccountService', SERVICE_OPTIONS)
    if (
      typeof options.tokenEndpoint?.refresh !== 'function' ||
      typeof options.tokenEndpoint.revoke !== 'function'
    ) {
      throw new ConfigurationError(
        'oauth.account.service_options',
        'OAuthAccountService needs a tokenEndpoint',
      )
    }
    this.#store = options.store
    this.#endpoint = options.tokenEndpoint
    this.#clock = options.clock ?? (() => new Date())
  }

  /** Refreshes the retained tokens of a provider account. Provider outages throw `oauth.provider.unavailable`. */
  refresh(providerAccountId: string): Promise<RefreshOutcome> {
    let id: string
    try {
      id = requireId(providerAccountId, 'providerAccountId')
    } catch (error) {
      return Promise.reject(error)
    }
    const running = this.#inFlight.get(id)
    if (running !== undefined) return running
    const flight = this.#refresh(id).finally(() => this.#inFlight.delete(id))
    this.#inFlight.set(id, flight)
    return flight
  }

  /**
   * Revokes the refresh token, then the access token. If either fails upstream the tokens move to an
   * encrypted retry record (`revocation-pending`), which `drainRevocationRetries` works off later.
   */
  async revoke(providerAccountId: string): Promise<RevokeOutcome> {
    const id = requireId(providerAccountId, 'providerAccountId')
    let revokedBefore = false
    for (let attempt = 0; attempt < MAX_RACE_ATTEMPTS; attempt += 1) {
      const current = await this.#store.getTokens(id)
      if (current === null) return revokedBefore ? { status: 'revoked' } : { status: 'nothing-to-revoke' }
      const failedTokenTypes = await revokeUpstream(this.#endpoint, current.tokens, allTypes(current))
      const expectedVersion = current.reference.version
      if (failedTokenTypes.length === 0) {
        if (await this.#store.discardTokens({ providerAccountId: id, expectedVersion }))
          return { status: 'revoked' }
        revokedBefore = true
        continue
      }
      const staged = await this.#store.stageRevocationRetry({
        providerAccountId: id,
        expectedVersion,
        tokens: current.tokens,
        failedTokenTypes,
        occurredAt: this.#now(),
      })
      if (staged !== null) return { status: 'revocation-pending', retryId: staged.retryId, failedTokenTypes }
    }
    throw new OAuthAccountError(
      OAuthAccountErrorCodes.tokensRaced,
      'retained tokens kept changing during revocation',
    )
  }

  async #refresh(id: string): Promise<RefreshOutcome> {
    const current = await this.#store.getTokens(id)
    if (current === null) return { status: 'reauthorization-required', reason: 'no-tokens' }
    const refreshToken = current.tokens.refreshToken
    if (refreshToken === null) return { status: 'reauthorization-required', reason: 'no-refresh-token' }
    const expectedVersion = current.reference.version
    let result: Awaited<ReturnType<TokenEndpointClient['refresh']>>
    try {
      result = await this.#endpoint.refresh({ refreshToken, scopes: current.tokens.scopes })
    } catch (error) {
      throw new OAuthAccountError(OAuthAccountErrorCodes.providerUnavailable, 'the token endpoint failed', {
        cause: error,
      })
    }
    if (result.kind === 'invalid-grant') {
      if (await this.#store.discardTokens({ providerAccountId: id, expectedVersion })) {
        return { status: 'reauthorization-required', reason: 'invalid-grant' }
      }
      return this.#afterLostRace(id, expectedVersion)
    }
    const tokens = rotated(current.tokens, result.tokens, this.#now())
    const reference = await this.#store.replaceTokens({ providerAccountId: id, expectedVersion, tokens })
    if (reference !== null) return { status: 'refreshed', tokens: { reference, tokens } }
    return this.#afterLostRace(id, expectedVersion)
  }

  /** Another refresher (another process) swapped first: re-read and return its tokens. */
  async #afterLostRace(id: string, lostVersion: number): Promise<RefreshOutcome> {
    const latest = await this.#store.getTokens(id)
    if (latest === null) return { status: 'reauthorization-required', reason: 'no-tokens' }
    if (latest.reference.version === lostVersion) {
      throw new OAuthAccountError(
        OAuthAccountErrorCodes.tokensRaced,
        'the token version did not move after a lost swap',
      )
    }
    return { status: 'refreshed', tokens: latest }
  }

  #now(): Date {
    return requireNow(this.#clock(), 'clock()')
  }
}

function allTypes(stored: StoredProviderTokens): readonly RevocationTokenType[] {
  return stored.tokens.refreshToken === null ? ['access_token'] : ['refresh_token', 'access_token']
}

/** Revokes each type in order (refresh token first), independently; returns the types that failed. */
export async function revokeUpstream(
  endpoint: TokenEndpointClient,
  tokens: ProviderTokenSet,
  types: readonly RevocationTokenType[],
): Promise<RevocationTokenType[]> {
  const failed: RevocationTokenType[] = []
  for (const tokenTypeHint of types) {
    const token = tokenTypeHint === 'refresh_token' ? tokens.refreshToken : tokens.accessToken
    if (token === null) continue
    try {
      await endpoint.revoke({ token, tokenTypeHint })
    } catch {
      failed.push(tokenTypeHint)
    }
  }
  return failed
}

/** Builds the rotated token set: omitted scopes and refresh/ID tokens carry over from the current set. */
function rotated(current: ProviderTokenSet, response: TokenEndpointTokens, now: Date): ProviderTokenSet {
  const expiresIn = response?.expiresIn
  if (
    typeof expiresIn !== 'number' ||
    !Number.isSafeInteger(expiresIn) ||
    expiresIn < 1 ||
    expiresIn > MAX_EXPIRES_IN
  ) {
    throw malformedResponse()
  }
  try {
    return new ProviderTokenSet({
      accessToken: response.accessToken,
      ...(response.tokenType === undefined ? {} : { tokenType: response.tokenType }),
      scopes: response.scopes ?? current.scopes,
      expiresAt: new Date(now.getTime() + expiresIn * 1000),
      refreshToken: response.refreshToken ?? current.refreshToken,
      idToken: response.idToken ?? current.idToken,
    })
  } catch {
    throw malformedResponse()
  }
}

function malformedResponse(): OAuthAccountError {
  return new OAuthAccountError(
    OAuthAccountErrorCodes.providerUnavailable,
    'the token endpoint answered malformed tokens',
  )
}
