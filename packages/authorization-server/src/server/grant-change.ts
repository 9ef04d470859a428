import { AsyncLocalStorage } from 'node:async_hooks'
import type { OAuthServerChange } from '@portcullis/core/authorization-server'

// The consent interaction saves a grant through oidc-provider (`grant.save()`), which reaches the store
// only through the persistence bridge's adapter. What the store must write with that grant (its
// connection notification) travels beside the call: `withGrantChange` runs the save, and the adapter's
// `Grant` upsert in it takes the change, once.

interface Pending {
  change: OAuthServerChange | undefined
}

const pending = new AsyncLocalStorage<Pending>()

/**
 * Runs `save` so that the first `Grant` upsert it makes writes `change` in the grant's transaction; true
 * when an upsert took it (false: the grant was not saved through `createAuthorizationServer`'s store).
 */
export async function withGrantChange(
  change: OAuthServerChange,
  save: () => Promise<void>,
): Promise<boolean> {
  const current: Pending = { change }
  await pending.run(current, save)
  return current.change === undefined
}

/** For the adapter: the change to write with this upsert (a `Grant` in `withGrantChange` only, once). */
export function takeGrantChange(model: string): OAuthServerChange | undefined {
  if (model !== 'Grant') return undefined
  const current = pending.getStore()
  if (current === undefined) return undefined
  const { change } = current
  current.change = undefined
  return change
}
