import { randomBytes, randomUUID } from 'node:crypto'
import {
  PostgresAccountStore,
  PostgresOAuthAccountStore,
  PostgresOAuthTransactionStore,
  PostgresStepUpStore,
} from '../../src/index.js'
import { NOW } from './accounts.js'
import { apiKeyInstance } from './api-keys.js'
import { type FaultCase, type FaultKit, partial } from './faults.js'
import { sampleTransaction } from './oauth-transactions.js'

/** Cut cases for the OAuth account store, step-up credentials, API keys and OAuth transactions. */
export function accountFaultCases(kit: FaultKit): readonly FaultCase[] {
  const { db, protector, identity, tokens, direct, one, accountStore, linked } = kit
  return [
    {
      name: 'account login with provisioning',
      table: 'portcullis_oauth_token_vault',
      multiStatement: true,
      async prepare(client) {
        const person = identity()
        return {
          run: () =>
            accountStore(client).login({
              identity: person,
              grant: { scopes: ['openid'] },
              tokens: tokens('login'),
              provisionUnknown: true,
              now: NOW,
            }),
          async check() {
            const link = await one<{ id: string; account: string }>(
              'select provider_account_id as id, account_id as account from portcullis_oauth_links where subject = $1',
              [person.subject],
            )
            if (link === undefined) return 'untouched'
            const vault = await one(
              'select 1 from portcullis_oauth_token_vault where provider_account_id = $1',
              [link.id],
            )
            return vault === undefined ? partial('link without vault') : 'written'
          },
        }
      },
    },
    {
      name: 'account link',
      table: 'portcullis_oauth_token_vault',
      multiStatement: true,
      async prepare(client) {
        const { accountId } = await linked(db.client)
        const store = new PostgresOAuthAccountStore({
          client,
          provider: 'second-idp',
          clientId: 'c',
          protector,
        })
        return {
          run: () =>
            store.link({
              accountId,
              identity: identity('second-idp'),
              grant: { scopes: ['openid'] },
              tokens: tokens('link'),
              now: NOW,
            }),
          async check() {
            const count = (await store.getAccount(accountId))?.loginMethods
            const link = await store.resolveLink({ accountId, provider: 'second-idp' })
            const vault = link === null ? null : await store.getTokens(link.providerAccountId)
            if (link === null) return count === 1 ? 'untouched' : partial('count without link')
            return count === 2 && vault !== null ? 'written' : partial('link without tokens')
          },
        }
      },
    },
    {
      name: 'account scope upgrade',
      table: 'portcullis_oauth_token_vault',
      multiStatement: true,
      async prepare(client) {
        const person = identity()
        const first = await accountStore(db.client).login({
          identity: person,
          grant: { scopes: ['openid'] },
          tokens: tokens('first'),
          provisionUnknown: true,
          now: NOW,
        })
        const store = accountStore(client)
        return {
          run: () =>
            store.upgradeScopes({
              accountId: first.link.accountId,
              providerAccountId: first.link.providerAccountId,
              identity: person,
              grant: { scopes: ['openid', 'calendar'] },
              tokens: tokens('upgraded'),
              now: NOW,
            }),
          async check() {
            const link = await store.resolveLink({ accountId: first.link.accountId, provider: 'example-idp' })
            const version = (await store.getTokens(first.link.providerAccountId))?.reference.version
            const upgraded = link?.grant.scopes.includes('calendar')
            if (upgraded) return version === 2 ? 'written' : partial('grant without tokens')
            return version === 1 ? 'untouched' : partial('tokens without grant')
          },
        }
      },
    },
    {
      name: 'account unlink',
      table: 'portcullis_oauth_token_vault',
      multiStatement: true,
      async prepare(client) {
        const { accountId, providerAccountId } = await linked(db.client)
        await new PostgresAccountStore({ client: db.client }).addPassword({
          accountId,
          username: `fault.${randomUUID()}`,
          passwordHash: '$argon2id$fault',
          now: NOW,
        })
        const store = accountStore(client)
        const accounts = new PostgresAccountStore({ client })
        return {
          run: () => store.unlink({ accountId, provider: 'example-idp', providerAccountId }),
          async check() {
            const link = await store.resolveLink({ accountId, provider: 'example-idp' })
            const methods = (await store.getAccount(accountId))?.loginMethods
            const tokensLeft = await store.getTokens(providerAccountId)
            const epoch = (await accounts.getAccount(accountId))?.securityEpoch
            if (link === null) {
              return methods === 1 && tokensLeft === null && epoch === 2 ? 'written' : partial('unlink')
            }
            return methods === 2 && tokensLeft !== null && epoch === 1 ? 'untouched' : partial('unlink')
          },
        }
      },
    },
    {
      name: 'password removal with an epoch bump',
      table: 'portcullis_accounts',
      multiStatement: true,
      async prepare(client) {
        const { accountId } = await linked(db.client)
        await new PostgresAccountStore({ client: db.client }).addPassword({
          accountId,
          username: `fault.${randomUUID()}`,
          passwordHash: '$argon2id$fault',
          now: NOW,
        })
        const accounts = new PostgresAccountStore({ client })
        return {
          run: () => accounts.removePassword({ accountId, now: NOW }),
          async check() {
            const password = await accounts.findPassword({ accountId })
            const epoch = (await accounts.getAccount(accountId))?.securityEpoch
            if (password === null) return epoch === 2 ? 'written' : partial('password gone, epoch kept')
            return epoch === 1 ? 'untouched' : partial('epoch moved, password kept')
          },
        }
      },
    },
    {
      name: 'account deletion',
      table: 'portcullis_accounts',
      multiStatement: true,
      async prepare(client) {
        const { accountId, providerAccountId } = await linked(db.client)
        await accountStore(db.client).discardTokens({ providerAccountId })
        const accounts = new PostgresAccountStore({ client })
        const store = accountStore(client)
        return {
          run: () => accounts.deleteAccount({ accountId, now: NOW }),
          async check() {
            const account = await accounts.getAccount(accountId)
            const link = await store.resolveLink({ accountId, provider: 'example-idp' })
            if (account === null) return link === null ? 'written' : partial('link without account')
            return link !== null ? 'untouched' : partial('account without link')
          },
        }
      },
    },
    {
      name: 'token refresh compare-and-swap',
      table: 'portcullis_oauth_token_vault',
      multiStatement: false,
      async prepare(client) {
        const { providerAccountId } = await linked(db.client)
        const store = accountStore(client)
        const next = tokens('swapped')
        return {
          run: () => store.replaceTokens({ providerAccountId, expectedVersion: 1, tokens: next }),
          async check() {
            const stored = await store.getTokens(providerAccountId)
            if (stored?.reference.version === 2) {
              return stored.tokens.accessToken === next.accessToken
                ? 'written'
                : partial('version without tokens')
            }
            return stored?.reference.version === 1 ? 'untouched' : partial('vault lost')
          },
        }
      },
    },
    {
      name: 'token discard',
      table: 'portcullis_oauth_token_vault',
      multiStatement: false,
      async prepare(client) {
        const { providerAccountId } = await linked(db.client)
        const store = accountStore(client)
        return {
          run: () => store.discardTokens({ providerAccountId, expectedVersion: 1 }),
          async check() {
            return (await store.getTokens(providerAccountId)) === null ? 'written' : 'untouched'
          },
        }
      },
    },
    {
      name: 'revocation retry staging',
      table: 'portcullis_oauth_revocation_retries',
      multiStatement: false,
      async prepare(client) {
        const { providerAccountId } = await linked(db.client)
        const store = accountStore(client)
        return {
          run: () =>
            store.stageRevocationRetry({
              providerAccountId,
              expectedVersion: 1,
              tokens: tokens('staged'),
              failedTokenTypes: ['refresh_token'],
              occurredAt: NOW,
            }),
          async check() {
            const retry = await one(
              'select 1 from portcullis_oauth_revocation_retries where provider_account_id = $1',
              [providerAccountId],
            )
            const kept = await store.getTokens(providerAccountId)
            if (retry === undefined) return kept !== null ? 'untouched' : partial('tokens cleared, no retry')
            return kept === null ? 'written' : partial('retry staged, tokens kept')
          },
        }
      },
    },
    {
      name: 'revocation retry claim and completion',
      table: 'portcullis_oauth_revocation_retries',
      multiStatement: true,
      async prepare(client) {
        const clientId = `claims-${randomUUID()}`
        const owner = accountStore(db.client, clientId)
        const login = await owner.login({
          identity: identity(),
          grant: { scopes: ['openid'] },
          tokens: tokens('retained'),
          provisionUnknown: true,
          now: NOW,
        })
        const staged = await owner.stageRevocationRetry({
          providerAccountId: login.link.providerAccountId,
          expectedVersion: 1,
          tokens: tokens('staged'),
          failedTokenTypes: ['refresh_token'],
          occurredAt: NOW,
        })
        const store = accountStore(client, clientId)
        return {
          run: () => store.claimRevocationRetries({ now: NOW, leaseSeconds: 60, limit: 10 }),
          async check() {
            const row = await one<{ claim: string | null; attempts: number }>(
              'select claim, attempts from portcullis_oauth_revocation_retries where retry_id = $1',
              [staged?.retryId],
            )
            if (row?.claim === null)
              return row.attempts === 0 ? 'untouched' : partial('attempt without claim')
            return row?.attempts === 1 ? 'written' : partial('claim without attempt')
          },
        }
      },
    },
    {
      name: 'step-up credential save',
      table: 'portcullis_step_up_credentials',
      multiStatement: false,
      async prepare(client) {
        const digest = randomBytes(32).toString('base64url').slice(0, 43)
        const store = new PostgresStepUpStore({ client })
        return {
          run: () =>
            store.save({
              digest,
              accountId: 'acct-step-up',
              purpose: 'payout',
              securityEpoch: 1,
              sessionDigest: randomBytes(32).toString('base64url').slice(0, 43),
              issuedAt: new Date(),
              authenticatedAt: new Date(),
              expiresAt: new Date(Date.now() + 300_000),
            }),
          async check() {
            const row = await one('select 1 from portcullis_step_up_credentials where digest = $1', [digest])
            return row === undefined ? 'untouched' : 'written'
          },
        }
      },
    },
    {
      name: 'API-key rotation with overlap',
      table: 'portcullis_api_keys',
      multiStatement: true,
      async prepare(client) {
        const owner = apiKeyInstance(db.client, () => Date.now())
        const current = await owner.service.issue({ ownerId: `svc-${randomUUID()}` })
        const { service } = apiKeyInstance(client, () => Date.now())
        return {
          run: () => service.rotate(current.keyId, { overlapSeconds: 60 }),
          async check() {
            const rows = await direct(
              'select key_id, revoked_at from portcullis_api_keys where owner_id = $1',
              [current.ownerId],
            )
            const revoked = rows.rows.find((row) => row.key_id === current.keyId)?.revoked_at !== null
            if (rows.rowCount === 1) return revoked ? partial('revoked without replacement') : 'untouched'
            return rows.rowCount === 2 && revoked ? 'written' : partial('replacement without revocation')
          },
        }
      },
    },
    {
      name: 'API-key revocation and usage recording',
      table: 'portcullis_api_keys',
      multiStatement: false,
      async prepare(client) {
        const owner = apiKeyInstance(db.client, () => Date.now())
        const current = await owner.service.issue({ ownerId: `svc-${randomUUID()}` })
        const { store } = apiKeyInstance(client, () => Date.now())
        return {
          run: () => store.revoke(current.keyId, new Date()),
          async check() {
            const row = await one<{ revoked: boolean }>(
              'select revoked_at is not null as revoked from portcullis_api_keys where key_id = $1',
              [current.keyId],
            )
            return row?.revoked ? 'written' : 'untouched'
          },
        }
      },
    },
    {
      name: 'OAuth transaction consume',
      table: 'portcullis_oauth_transactions',
      multiStatement: false,
      async prepare(client) {
        const transaction = sampleTransaction(new Date())
        await new PostgresOAuthTransactionStore({ client: db.client, protector }).create(transaction)
        const store = new PostgresOAuthTransactionStore({ client, protector })
        return {
          run: () => store.consume(transaction, new Date()),
          async check() {
            const row = await one('select 1 from portcullis_oauth_transactions where state_digest = $1', [
              Buffer.from(transaction.stateDigest),
            ])
            return row === undefined ? 'written' : 'untouched'
          },
        }
      },
    },
  ]
}
