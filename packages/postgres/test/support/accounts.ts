import { isPortcullisError } from '@portcullis/core'
import { accounts } from '@portcullis/core/oauth'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import { PostgresAccountStore, type PostgresClient, type PostgresOAuthAccountStore } from '../../src/index.js'
import { type MigratedDatabase, realProtector } from './database.js'

export const NOW = new Date('2031-03-04T05:06:07.000Z')

/** Builders over one migrated database: stores, fresh identities and token sets with unique secrets. */
export function accountFixtures(db: MigratedDatabase) {
  const protector = realProtector()
  let sequence = 0
  return {
    store(
      options: {
        client?: PostgresClient
        provider?: string
        clientId?: string
        protector?: OAuthTransactionProtector
      } = {},
    ): PostgresOAuthAccountStore {
      return new PostgresAccountStore({ client: options.client ?? db.client }).oauth({
        provider: options.provider ?? 'example-idp',
        clientId: options.clientId ?? 'client-1',
        protector: options.protector ?? protector,
      })
    },
    /** Creates an account whose one sign-in method is a password. */
    async passwordAccount(accountId: string, client: PostgresClient = db.client): Promise<void> {
      sequence += 1
      const created = await new PostgresAccountStore({ client }).createAccount({
        accountId,
        username: `user.${sequence}.${Date.now()}`,
        passwordHash: '$argon2id$test',
        now: NOW,
      })
      if (created.outcome !== 'created') throw new Error(`setup: ${created.outcome}`)
    },
    identity(provider = 'example-idp') {
      sequence += 1
      return { provider, issuer: 'https://idp.example/', subject: `person-${sequence}-${Date.now()}` }
    },
    tokens(label: string): accounts.ProviderTokenSet {
      sequence += 1
      return new accounts.ProviderTokenSet({
        accessToken: `access-secret-${label}-${sequence}`,
        refreshToken: `refresh-secret-${label}-${sequence}`,
        idToken: `id-secret-${label}-${sequence}`,
        scopes: ['openid'],
        expiresAt: new Date(NOW.getTime() + 3_600_000),
      })
    },
    async countRows(table: string): Promise<number> {
      const result = await db.client.pool.query<{ count: number }>(
        `select count(*)::int as count from ${table}`,
      )
      return result.rows[0]?.count ?? -1
    },
  }
}

/** The error `code` a promise rejects with, or undefined when it resolves. */
export async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise
    return undefined
  } catch (error) {
    return isPortcullisError(error) ? error.code : `<${String(error)}>`
  }
}
