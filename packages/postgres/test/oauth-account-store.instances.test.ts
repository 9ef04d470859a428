import { accounts } from '@portcullis/core/oauth'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresClient, type PostgresOAuthAccountStore } from '../src/index.js'
import { accountFixtures, NOW } from './support/accounts.js'
import { migratedDatabase } from './support/database.js'
import { LoopbackIdentityProvider } from './support/identity-provider.js'

const db = await migratedDatabase()
const idp = new LoopbackIdentityProvider()
beforeAll(() => idp.start())
afterAll(async () => {
  await idp.stop()
  await db.close()
})
const { store, identity, tokens, countRows } = accountFixtures(db)

describe('PostgresOAuthAccountStore connections', () => {
  it('refreshes the same with unnamed statements, and switches to them when a session is shared', async () => {
    const unnamed = createPostgresClient({
      connectionString: db.database.connectionString,
      maxConnections: 2,
      preparedStatements: false,
    })
    // One connection whose session already holds statements of the store's names, as when several
    // connections share one session (a pooler in transaction mode): preparing them again fails with 42P05.
    const shared = createPostgresClient({ connectionString: db.database.connectionString, maxConnections: 1 })
    try {
      for (const name of ['portcullis_vault_get', 'portcullis_vault_swap']) {
        await shared.pool.query(`prepare ${name} as select 'taken'`)
      }
      for (const client of [unnamed, shared]) {
        const accountStore = store({ client })
        const login = await accountStore.login({
          identity: identity(),
          grant: { scopes: ['openid'] },
          tokens: tokens('u1'),
          provisionUnknown: true,
          now: NOW,
        })
        const id = login.link.providerAccountId
        const stored = await accountStore.getTokens(id)
        expect(stored?.reference.version).toBe(1)
        const swapped = await accountStore.replaceTokens({
          providerAccountId: id,
          expectedVersion: 1,
          tokens: tokens('u2'),
        })
        expect(swapped?.version).toBe(2)
        expect(
          await accountStore.replaceTokens({
            providerAccountId: id,
            expectedVersion: 1,
            tokens: tokens('u3'),
          }),
        ).toBeNull()
        expect(await accountStore.discardTokens({ providerAccountId: id, expectedVersion: 2 })).toBe(true)
        expect(await accountStore.getTokens(id)).toBeNull()
      }
    } finally {
      await unnamed.close()
      await shared.close()
    }
  })
})

describe('PostgresOAuthAccountStore across app instances', () => {
  it('first logins of one identity on two instances provision one account and leave no orphan', async () => {
    const instances = [store({ client: db.connect(8) }), store({ client: db.connect(8) })]
    const person = identity()
    const accountsBefore = await countRows('portcullis_accounts')
    const outcomes = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        (instances[index % 2] ?? instances[0])?.login({
          identity: person,
          grant: { scopes: ['openid'] },
          tokens: tokens(`race-${index}`),
          provisionUnknown: true,
          now: NOW,
        }),
      ),
    )
    expect(outcomes.filter((outcome) => outcome?.provisioned)).toHaveLength(1)
    expect(new Set(outcomes.map((outcome) => outcome?.link.accountId)).size).toBe(1)
    expect(await countRows('portcullis_accounts')).toBe(accountsBefore + 1)
    const versions = outcomes.map((outcome) => outcome?.tokens?.version ?? 0).sort((a, b) => a - b)
    expect(versions).toEqual(Array.from({ length: 16 }, (_, index) => index + 1))
  })

  it('revocation retries drained by two instances at once are revoked and completed exactly once', async () => {
    const instances = [store({ client: db.connect(4) }), store({ client: db.connect(4) })]
    const staged: string[] = []
    const secrets: string[] = []
    const at = new Date('1999-01-01T00:00:00Z')
    for (let index = 0; index < 12; index += 1) {
      const set = tokens(`drain-${index}`)
      const login = await instances[0]?.login({
        identity: identity(),
        grant: { scopes: ['openid'] },
        tokens: set,
        provisionUnknown: true,
        now: NOW,
      })
      const retry = await instances[0]?.stageRevocationRetry({
        providerAccountId: login?.link.providerAccountId ?? '',
        expectedVersion: login?.tokens?.version ?? 0,
        tokens: set,
        failedTokenTypes: ['refresh_token', 'access_token'],
        occurredAt: at,
      })
      staged.push(retry?.retryId ?? '')
      secrets.push(set.refreshToken ?? '', set.accessToken)
    }
    const revokedBefore = idp.revoked.length
    const drain = (accountStore: PostgresOAuthAccountStore) =>
      accounts.drainRevocationRetries({
        store: accountStore,
        tokenEndpoint: idp.client(),
        clock: () => new Date('1999-01-02T00:00:00Z'),
        limit: 5,
        leaseSeconds: 300,
      })
    const reports = []
    for (let round = 0; round < 4; round += 1) reports.push(...(await Promise.all(instances.map(drain))))
    const revoked = idp.revoked.slice(revokedBefore).filter((token) => secrets.includes(token))
    expect(revoked.sort()).toEqual([...secrets].sort())
    expect(reports.reduce((sum, report) => sum + report.superseded + report.failed, 0)).toBe(0)
    const left = await db.client.pool.query(
      'select retry_id from portcullis_oauth_revocation_retries where retry_id = any($1)',
      [staged],
    )
    expect(left.rows).toEqual([])
  })
})
