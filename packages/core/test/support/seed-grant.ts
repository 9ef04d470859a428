// A fresh account and an active grant of it, saved as the authorization server saves one: what every
// resource-side test of access tokens starts from (memory or Postgres stores alike).
import { randomUUID } from 'node:crypto'
import type { PasswordMethods } from '../../src/accounts/port.js'
import type { OAuthServerStore } from '../../src/authorization-server/port.js'

export interface SeedGrantOptions {
  readonly clientId: string
  readonly resource: string
  /** Default `mcp:read`. */
  readonly scope?: string
  /** Milliseconds since the epoch. Default `Date.now()`. */
  readonly now?: number
  /** Default one hour. */
  readonly lifetimeMs?: number
}

export async function seedGrant(
  stores: {
    readonly accounts: Pick<PasswordMethods, 'createAccount'>
    readonly grants: Pick<OAuthServerStore, 'upsert'>
  },
  options: SeedGrantOptions,
): Promise<{ readonly accountId: string; readonly grantId: string }> {
  const accountId = randomUUID()
  const now = options.now ?? Date.now()
  await stores.accounts.createAccount({
    accountId,
    username: `user${accountId.slice(0, 8)}`,
    passwordHash: '$test$x',
    now: new Date(now),
  })
  const grantId = `grant-${randomUUID()}`
  await stores.grants.upsert({
    model: 'Grant',
    id: grantId,
    payload: {
      accountId,
      clientId: options.clientId,
      resources: { [options.resource]: options.scope ?? 'mcp:read' },
    },
    expiresAt: new Date(now + (options.lifetimeMs ?? 3_600_000)),
  })
  return { accountId, grantId }
}
