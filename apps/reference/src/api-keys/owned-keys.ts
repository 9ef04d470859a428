import {
  type ApiKeyDirectory,
  type ApiKeyStatus,
  type ApiKeySummary,
  apiKeyStatus,
} from '@portcullis/core/api-keys'

/** One key as the API-key page lists it: the directory's metadata (never a digest) and its state now. */
export interface OwnedKey extends ApiKeySummary {
  readonly status: ApiKeyStatus
}

/** How many keys the page shows; older ones are still listed by the directory, a page further on. */
const PAGE_SIZE = 100

/**
 * The signed-in user's keys (`ownerKind: 'user'`), newest first, with each key's state at `now`: through
 * the `ApiKeyDirectory` port, so a database outage is the store's typed `postgres.unavailable` (503).
 */
export async function listOwnedKeys(
  directory: ApiKeyDirectory,
  ownerId: string,
  now = Date.now(),
): Promise<readonly OwnedKey[]> {
  const keys = await directory.listByOwner({ ownerId, ownerKind: 'user' }, { limit: PAGE_SIZE })
  return keys.map((key) => ({ ...key, status: apiKeyStatus(key, now) }))
}
