import type { OAuthServerStore } from '@portcullis/core/authorization-server'
import type { Adapter, AdapterPayload } from 'oidc-provider'
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

/**
 * oidc-provider's adapter over the `OAuthServerStore` port. Beyond translating calls it keeps two rules:
 * - a `consume` that finds the entry already consumed (a replayed code, a reused rotated refresh token,
 *   including two concurrent redemptions of one value) revokes the whole grant and fails with
 *   `invalid_grant`; the provider itself revokes on the sequential replay it sees, this closes the race;
 * - a registered client is stored with an expiry until the first grant for it is saved.
 */
export function persistenceBridge(options: PersistenceBridgeOptions): (model: string) => Adapter {
  const { store, clock, unusedClientTtlSeconds, errors } = options
  const revoking = new Map<string, Promise<void>>()

  /** One `revokeGrant` per grant at a time: the provider revokes model by model, the store does it all. */
  const revokeGrant = (grantId: string): Promise<void> => {
    const running = revoking.get(grantId)
    if (running !== undefined) return running
    const started = store.revokeGrant(grantId).finally(() => revoking.delete(grantId))
    revoking.set(grantId, started)
    return started
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

  return (model: string): Adapter => ({
    async upsert(id, payload, expiresIn) {
      let expiresAt = typeof expiresIn === 'number' ? new Date(clock() + expiresIn * 1000) : undefined
      if (model === 'Client' && unusedClientTtlSeconds !== undefined) {
        const existing = await store.find('Client', { id })
        const kept = existing !== undefined && existing.expiresAt === undefined
        expiresAt = kept ? undefined : new Date(clock() + unusedClientTtlSeconds * 1000)
      }
      const { consumed: _consumed, ...stored } = payload as Payload
      await store.upsert({ model, id, payload: stored, expiresAt })
      if (model === 'Grant') await keepClient(payload.clientId)
    },
    async find(id) {
      return payloadOf(await store.find(model, { id }))
    },
    async findByUid(uid) {
      return payloadOf(await store.find(model, { uid }))
    },
    async findByUserCode(userCode) {
      return payloadOf(await store.find(model, { userCode }))
    },
    async consume(id) {
      const outcome = await store.consume(model, id)
      if (outcome === 'consumed') return
      if (outcome === 'already-consumed') {
        const grantId = (await store.find(model, { id }))?.payload.grantId
        if (typeof grantId === 'string') await revokeGrant(grantId)
        throw new errors.InvalidGrant('grant revoked: a one-time value was used twice')
      }
      throw new errors.InvalidGrant('grant not found')
    },
    async destroy(id) {
      if (model === 'Grant') return revokeGrant(id)
      return store.destroy(model, id)
    },
    async revokeByGrantId(grantId) {
      return revokeGrant(grantId)
    },
  })
}
