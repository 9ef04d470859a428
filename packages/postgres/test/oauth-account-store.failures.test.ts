import { inspect } from 'node:util'
import { isPortcullisError } from '@portcullis/core'
import type { OAuthTransactionProtector } from '@portcullis/core/protection'
import { afterAll, describe, expect, it } from 'vitest'
import { createPostgresClient, type PostgresClient, PostgresOAuthAccountStore } from '../src/index.js'
import { accountFixtures, codeOf, NOW } from './support/accounts.js'
import { migratedDatabase, realProtector } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())
const { store, identity, tokens, countRows, passwordAccount } = accountFixtures(db)
const protector = realProtector()

describe('PostgresOAuthAccountStore failures', () => {
  it('a protector failure rolls the whole operation back: no account, link or vault row is left', async () => {
    const failing: OAuthTransactionProtector = {
      activeKeyVersion: 'broken',
      protect: async () => {
        throw new Error('hsm unreachable')
      },
      unprotect: async () => {
        throw new Error('hsm unreachable')
      },
    }
    const before = await Promise.all(
      ['portcullis_accounts', 'portcullis_oauth_links', 'portcullis_oauth_token_vault'].map(countRows),
    )
    const broken = store({ protector: failing })
    const person = identity()
    expect(
      await codeOf(
        broken.login({
          identity: person,
          grant: { scopes: ['openid'] },
          tokens: tokens('p'),
          provisionUnknown: true,
          now: NOW,
        }),
      ),
    ).toBe('oauth.vault.unavailable')
    const accountId = `account-${Date.now()}-rollback`
    await passwordAccount(accountId)
    expect(
      await codeOf(
        broken.link({
          accountId,
          identity: person,
          grant: { scopes: ['openid'] },
          tokens: tokens('p'),
          now: NOW,
        }),
      ),
    ).toBe('oauth.vault.unavailable')
    const after = await Promise.all(
      ['portcullis_accounts', 'portcullis_oauth_links', 'portcullis_oauth_token_vault'].map(countRows),
    )
    expect(after).toEqual([(before[0] ?? 0) + 1, before[1], before[2]])
    expect(await broken.getAccount(accountId)).toEqual({ accountId, loginMethods: 1 })
    expect(await broken.resolveLink({ accountId, provider: 'example-idp' })).toBeNull()
  })

  it('an identity too long for the unique index is invalid input and creates nothing, not an outage', async () => {
    const wide = Array.from({ length: 2000 }, (_, index) =>
      String.fromCodePoint(0x4e00 + ((index * 7919) % 20000)),
    ).join('')
    const person = { ...identity(), issuer: `https://${wide}` }
    const before = await countRows('portcullis_accounts')
    const login = store().login({
      identity: person,
      grant: { scopes: ['openid'] },
      provisionUnknown: true,
      now: NOW,
    })
    expect(await codeOf(login)).toBe('oauth.account.invalid_input')
    expect(await countRows('portcullis_accounts')).toBe(before)
  })

  it('a database outage is postgres.unavailable (503), and leaks neither connection string nor token', async () => {
    const down = createPostgresClient({
      connectionString: 'postgres://app:s3cret-db-password@127.0.0.1:1/portcullis',
      maxConnections: 1,
    })
    try {
      const outage = store({ client: down })
      const retained = tokens('outage')
      const attempts = [
        () => outage.getAccount('someone'),
        () =>
          outage.login({
            identity: identity(),
            grant: { scopes: ['openid'] },
            tokens: retained,
            provisionUnknown: true,
            now: NOW,
          }),
        () => outage.replaceTokens({ providerAccountId: 'pa_x', expectedVersion: 1, tokens: retained }),
        () => outage.claimRevocationRetries({ now: NOW, leaseSeconds: 60, limit: 10 }),
      ]
      for (const attempt of attempts) {
        const error = await attempt().catch((caught: unknown) => caught)
        expect(isPortcullisError(error) && [error.code, error.errorClass]).toEqual([
          'postgres.unavailable',
          'unavailable',
        ])
        const rendered = `${String(error)} ${JSON.stringify(error)} ${inspect(error, { depth: 0 })}`
        expect(rendered).not.toContain('s3cret')
        expect(rendered).not.toContain(retained.accessToken)
      }
    } finally {
      await down.close()
    }
  })

  it('shows only its registration in util.inspect and JSON', () => {
    const accountStore = store()
    expect(inspect(accountStore)).toBe(
      'PostgresOAuthAccountStore { provider: "example-idp", clientId: "client-1" }',
    )
    expect(JSON.stringify(accountStore)).toBe('{"provider":"example-idp","clientId":"client-1"}')
  })

  it('refuses construction without a client, a protector or a valid registration', () => {
    const codes = [
      () =>
        new PostgresOAuthAccountStore({
          client: db.client,
          provider: 'x',
          clientId: 'c',
          protector: {} as OAuthTransactionProtector,
        }),
      () =>
        new PostgresOAuthAccountStore({
          client: {} as PostgresClient,
          provider: 'x',
          clientId: 'c',
          protector,
        }),
      () => new PostgresOAuthAccountStore({ client: db.client, provider: ' ', clientId: 'c', protector }),
    ].map((build) => {
      try {
        build()
        return 'built'
      } catch (error) {
        return isPortcullisError(error) ? error.code : 'other'
      }
    })
    expect(codes).toEqual([
      'oauth.account.protector_required',
      'oauth.account.store_options',
      'oauth.account.store_options',
    ])
  })
})
