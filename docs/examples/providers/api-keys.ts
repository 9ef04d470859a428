// API keys: `<prefix>_<keyId>_<secret>`, stored as HMAC-SHA256 digests under a versioned pepper.
import {
  type ApiKeyDirectory,
  ApiKeyPepperRing,
  ApiKeyService,
  ApiKeyUsageRecorder,
  apiKey,
  apiKeyStatus,
  decodeApiKeyPepper,
  MemoryApiKeyStore,
  required,
  requiresScope,
} from '@portcullis/core'
import { createSecurity } from '@portcullis/express'
import express from 'express'

function env(name: string): string {
  const value = process.env[name]
  if (value === undefined) throw new Error(`${name} must be set`)
  return value
}

// Peppers come from the environment or a secret store, at least 32 bytes each. To rotate the pepper, add
// the new one as active and keep the old one retained until every key issued under it was rotated.
// #region api-keys-3
const peppers = new ApiKeyPepperRing(
  decodeApiKeyPepper('2025-06', env('API_KEY_PEPPER_2025_06'), 'base64'),
  process.env.API_KEY_PEPPER_2024_11 === undefined
    ? []
    : [decodeApiKeyPepper('2024-11', process.env.API_KEY_PEPPER_2024_11, 'base64')],
)

// Use the Postgres store in production; the memory store is for tests and single-instance demos.
const store = new MemoryApiKeyStore()
export const apiKeys = new ApiKeyService({ store, peppers, prefix: 'acme' })
// Last-use times are written in batches, off the request path; flush on shutdown with `usage.close()`.
export const usage = new ApiKeyUsageRecorder({ store, flushIntervalMs: 60_000 })

const security = createSecurity({
  mechanisms: [apiKey({ service: apiKeys, usage })],
  authorizationResolver: () => ({ scopes: ['reports:read', 'reports:write'] }),
})
// #endregion api-keys-3
const router = security.router({ prefix: '/api' })
router.get(
  '/reports',
  { auth: required('api-key'), guards: [requiresScope('reports:read')] },
  (request, response) => {
    response.json({ owner: request.security.principal.id })
  },
)
export const app: express.Express = express()
app.use(security.middleware)
app.use(router)

export async function lifecycle(): Promise<void> {
  // Issue: the raw key exists only in `issued.value`; show it once. Restrictions cap the owner's grants.
  // #region api-keys-2
  const issued = await apiKeys.issue({
    ownerId: 'svc-reporting',
    restrictions: { scopes: ['reports:read'] },
    expiresAt: new Date(Date.now() + 90 * 86_400_000),
    label: 'nightly export',
  })
  console.log(`give this to the client once: ${issued.value}`) // inspect/JSON of `issued` never show it

  // Rotate with a one-hour overlap: the old key keeps working until then. Of concurrent rotations of the
  // same key exactly one wins; the others fail with code `api_key.not_active`.
  const replacement = await apiKeys.rotate(issued.keyId, { overlapSeconds: 3600 })

  // Revoke: immediate, and it also ends an overlap.
  await apiKeys.revoke(replacement.keyId)
  // #endregion api-keys-2
}

// A management page: the owner's keys, newest first, metadata only (the directory never returns a digest).
// Both built-in stores are also `ApiKeyDirectory`s; page on with `after: <the last key of a page>`.
// #region api-keys
export async function keysOf(directory: ApiKeyDirectory, ownerId: string) {
  const keys = await directory.listByOwner({ ownerId, ownerKind: 'service' }, { limit: 50 })
  return keys.map((key) => ({
    keyId: key.keyId,
    label: key.label ?? '',
    state: apiKeyStatus(key, Date.now()), // active | overlap | expired | revoked
    lastUsedAt: key.lastUsedAt?.toISOString() ?? 'never',
  }))
}
// #endregion api-keys

export const listed = keysOf(store, 'svc-reporting')
