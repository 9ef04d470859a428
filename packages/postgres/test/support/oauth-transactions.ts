import { randomBytes } from 'node:crypto'
import { transactions } from '@portcullis/core/oauth'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import { type PostgresClient, PostgresOAuthTransactionStore } from '../../src/index.js'
import { realProtector } from './database.js'

export const CALLBACK = 'https://app.example/auth/oauth/acme/callback'

/** A settable clock. */
export function manualClock(start = new Date(Date.UTC(2031, 2, 4, 5, 6, 7))) {
  let now = start.getTime()
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms
    },
  }
}

/**
 * Shared by every instance of one test file, as real instances share the protector key ring and the
 * HMAC pepper.
 */
export function transactionFixtures(
  protector: OAuthTransactionProtector = realProtector(),
  pepper = new Uint8Array(randomBytes(32)),
) {
  const redirects = new transactions.OAuthRedirectPolicy({ callbackUris: { acme: [CALLBACK] } })
  return {
    protector,
    /** One app instance: its store on its own pool and a service over it. */
    instance(client: PostgresClient, clock: () => Date = () => new Date()) {
      const store = new PostgresOAuthTransactionStore({ client, protector })
      const service = new transactions.OAuthTransactionService({ store, pepper, redirects, clock })
      return { store, service }
    },
  }
}

/** A valid transaction that starts at `createdAt`. */
export function sampleTransaction(
  createdAt: Date,
  overrides: Partial<transactions.OAuthTransactionInit> = {},
): transactions.OAuthTransaction {
  return new transactions.OAuthTransaction({
    stateDigest: randomBytes(32),
    bindingDigest: randomBytes(32),
    provider: 'acme',
    operation: 'login',
    redirectUri: CALLBACK,
    returnTo: '/',
    pkceVerifier: randomBytes(32).toString('base64url'),
    nonce: randomBytes(32).toString('base64url'),
    createdAt,
    expiresAt: new Date(createdAt.getTime() + 600_000),
    ...overrides,
  })
}
