import { AsyncLocalStorage } from 'node:async_hooks'
import type { OAuthServerEntry, OAuthServerStore } from '@portcullis/core/authorization-server'
import { isPortcullisError } from '@portcullis/core/errors'
import type { Adapter, AdapterPayload, KoaContextWithOIDC } from 'oidc-provider'
import { takeGrantChange } from './grant-change.js'
import type { OidcProviderModule } from './oidc-provider-module.js'

export interface PersistenceBridgeOptions {
  readonly store: OAuthServerStore
  /** Milliseconds since the epoch. */
  readonly clock: () => number
  /**
   * Registered (RFC 7591) clients are saved with this lifetime in seconds until a grant is made for them;
   * undefined when registration is off.
   */
  readonly unusedClientTtlSeconds: number | undefined
  /** oidc-provider's error classes (the loaded module's `errors`). */
  readonly errors: OidcProviderModule['errors']
}

type Payload = AdapterPayload & Record<string, unknown>

/** The seconds a client is told to wait when the store is down and the error names no pause. */
export const DEFAULT_RETRY_AFTER_SECONDS = 2

/** The one-time values (a code, a refresh token) whose redemption waits for the response. */
const REDEEMED = new Set(['AuthorizationCode', 'RefreshToken'])

/** What one request defers: the code or refresh token it redeems and the refresh token replacing it. */
interface Redemption {
  consumed: { readonly model: string; readonly id: string } | undefined
  replacement: OAuthServerEntry | undefined
  /** Set when the store was unavailable during the request: the `Retry-After` to send. */
  retryAfterSeconds: number | undefined
}

export type ProviderMiddleware = (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void>

export interface PersistenceBridge {
  /** oidc-provider's `adapter` option. */
  readonly adapter: (model: string) => Adapter
  /** Installed with `provider.use`: runs each request's deferred redemption once its answer is known. */
  readonly middleware: ProviderMiddleware
  /**
   * The error oidc-provider answers when `error` is the store (or another port) being unavailable:
   * 503 `temporarily_unavailable`, with `Retry-After` added by the middleware; other errors unchanged.
   */
  unavailable(error: unknown): unknown
}

const isUnavailable = (error: unknown): boolean =>
  isPortcullisError(error) && error.errorClass === 'unavailable'

const retryAfterOf = (error: unknown): number => {
  const seconds = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds
  return typeof seconds === 'number' && Number.isInteger(seconds) && seconds > 0
    ? seconds
    : DEFAULT_RETRY_AFTER_SECONDS
}

const UNAVAILABLE_DESCRIPTION = 'the authorization server is temporarily unavailable, retry shortly'

/**
 * oidc-provider's adapter over the `OAuthServerStore` port. Beyond translating calls it keeps these rules:
 * - redeeming a code or a refresh token is deferred to the end of the request: the provider's `consume`
 *   and the save of the refresh token it issues in exchange are only noted, and once the provider has
 *   answered 200 they run as one `store.rotate` (one transaction). A refused request (`invalid_target`,
 *   `invalid_scope`, a DPoP mismatch, an outage, anything) therefore never spends the value, and a
 *   rotation whose save fails leaves the old refresh token usable;
 * - a redemption the store finds already consumed (a replayed code, a reused rotated refresh token,
 *   including two concurrent redemptions of one value) revokes the whole grant and answers
 *   `invalid_grant` instead of the tokens; the provider itself revokes on the sequential replay it sees,
 *   this closes the race;
 * - a store that is unavailable makes the answer 503 `temporarily_unavailable` with `Retry-After`;
 * - a registered client is stored with an expiry until the first grant for it is saved;
 * - a `Grant` saved in `withGrantChange` (the consent interaction connecting a client) carries that
 *   change (its notification) into the store's upsert, written in the grant's transaction.
 */
export function persistenceBridge(options: PersistenceBridgeOptions): PersistenceBridge {
  const { store, clock, unusedClientTtlSeconds, errors } = options
  const revoking = new Map<string, Promise<void>>()
  const requests = new AsyncLocalStorage<Redemption>()

  /** One `revokeGrant` per grant at a time: the provider revokes model by model, the store does it all. */
  const revokeGrant = (grantId: string): Promise<void> => {
    const running = revoking.get(grantId)
    if (running !== undefined) return running
    const started = store.revokeGrant(grantId).finally(() => revoking.delete(grantId))
    revoking.set(grantId, started)
    return started
  }

  const unavailable = (error: unknown): unknown => {
    if (!isUnavailable(error)) return error
    const request = requests.getStore()
    if (request !== undefined) request.retryAfterSeconds = retryAfterOf(error)
    const refusal = new errors.CustomOIDCProviderError('temporarily_unavailable', UNAVAILABLE_DESCRIPTION, {
      cause: error,
    })
    return Object.assign(refusal, { status: 503, statusCode: 503, expose: true, allow_redirect: true })
  }

  /** Runs a store call; an outage becomes the provider's 503 error. */
  const guarded = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call()
    } catch (error) {
      throw unavailable(error)
    }
  }

  const payloadOf = (entry: Awaited<ReturnType<OAuthServerStore['find']>>): Payload | undefined => {
    if (entry === undefined) return undefined
    const payload = { ...entry.payload } as Payload
    if (entry.consumedAt !== undefined) payload.consumed = Math.floor(entry.consumedAt.getTime() / 1000)
    return payload
  }

  /** The first grant made for a registered client keeps the client: its entry is saved without expiry. */
  const keepClient = async (clientId: unknown): Promise<void> => {
    if (unusedClientTtlSeconds === undefined || typeof clientId !== 'string') return
    const client = await store.find('Client', { id: clientId })
    if (client === undefined || client.expiresAt === undefined) return
    await store.upsert({ model: 'Client', id: clientId, payload: client.payload, expiresAt: undefined })
  }

  /** A value found consumed: the grant it belongs to is revoked. */
  const reused = async (model: string, id: string): Promise<never> => {
    const grantId = (await store.find(model, { id }))?.payload.grantId
    if (typeof grantId === 'string') await revokeGrant(grantId)
    throw new errors.InvalidGrant('grant revoked: a one-time value was used twice')
  }

  /** The deferred redemption of a request the provider answered 200; throws the provider error to send. */
  const redeem = async ({ consumed, replacement }: Redemption): Promise<void> => {
    if (consumed === undefined) return
    const outcome =
      replacement === undefined
        ? await store.consume(consumed.model, consumed.id)
        : await store.rotate(consumed.model, consumed.id, replacement)
    if (outcome === 'consumed') return
    if (outcome === 'already-consumed') await reused(consumed.model, consumed.id)
    throw new errors.InvalidGrant('grant not found')
  }

  const middleware: ProviderMiddleware = async (ctx, next) => {
    const request: Redemption = { consumed: undefined, replacement: undefined, retryAfterSeconds: undefined }
    await requests.run(request, next)
    if (request.consumed !== undefined && ctx.status === 200) {
      // The tokens in the body are only valid once the redemption is saved: any failure replaces them.
      try {
        await redeem(request)
      } catch (error) {
        if (isUnavailable(error)) {
          request.retryAfterSeconds = retryAfterOf(error)
          ctx.status = 503
          ctx.body = { error: 'temporarily_unavailable', error_description: UNAVAILABLE_DESCRIPTION }
        } else if (error instanceof errors.OIDCProviderError && error.expose) {
          ctx.status = error.statusCode
          ctx.body = { error: error.error, error_description: error.error_description }
        } else {
          ctx.status = 500
          ctx.body = { error: 'server_error', error_description: 'oops! something went wrong' }
        }
      }
    }
    if (ctx.status === 503 && request.retryAfterSeconds !== undefined) {
      ctx.set('Retry-After', String(request.retryAfterSeconds))
    }
  }

  const adapter = (model: string): Adapter => ({
    upsert: (id, payload, expiresIn) =>
      guarded(async () => {
        let expiresAt = typeof expiresIn === 'number' ? new Date(clock() + expiresIn * 1000) : undefined
        if (model === 'Client' && unusedClientTtlSeconds !== undefined) {
          const existing = await store.find('Client', { id })
          const kept = existing !== undefined && existing.expiresAt === undefined
          expiresAt = kept ? undefined : new Date(clock() + unusedClientTtlSeconds * 1000)
        }
        const { consumed: _consumed, ...stored } = payload as Payload
        const request = requests.getStore()
        if (
          model === 'RefreshToken' &&
          request?.consumed !== undefined &&
          request.replacement === undefined
        ) {
          // The refresh token issued in exchange for the redeemed value: saved with the redemption.
          request.replacement = { model, id, payload: stored, expiresAt }
          return
        }
        const change = takeGrantChange(model)
        await (change === undefined
          ? store.upsert({ model, id, payload: stored, expiresAt })
          : store.upsert({ model, id, payload: stored, expiresAt }, change))
        if (model === 'Grant') await keepClient(payload.clientId)
      }),
    find: (id) => guarded(async () => payloadOf(await store.find(model, { id }))),
    findByUid: (uid) => guarded(async () => payloadOf(await store.find(model, { uid }))),
    findByUserCode: (userCode) => guarded(async () => payloadOf(await store.find(model, { userCode }))),
    consume: (id) =>
      guarded(async () => {
        const request = requests.getStore()
        if (REDEEMED.has(model) && request !== undefined && request.consumed === undefined) {
          request.consumed = { model, id }
          return
        }
        const outcome = await store.consume(model, id)
        if (outcome === 'consumed') return
        if (outcome === 'already-consumed') await reused(model, id)
        throw new errors.InvalidGrant('grant not found')
      }),
    destroy: (id) => guarded(() => (model === 'Grant' ? revokeGrant(id) : store.destroy(model, id))),
    revokeByGrantId: (grantId) => guarded(() => revokeGrant(grantId)),
  })

  return { adapter, middleware, unavailable }
}
