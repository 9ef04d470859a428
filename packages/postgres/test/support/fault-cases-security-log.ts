import { randomBytes, randomUUID } from 'node:crypto'
import { SecurityLogEntries } from '@portcullis/core/security-log'
import {
  PostgresAccountStore,
  PostgresApiKeyStore,
  type PostgresClient,
  PostgresOAuthServerStore,
} from '../../src/index.js'
import { type FaultCase, type FaultKit, partial } from './faults.js'

const entries = new SecurityLogEntries()

/**
 * Cut cases for changes that carry their audit entry (`securityLog`): each is parked on the security
 * log's table, after the change's own statements ran in the transaction, so a cut must leave neither
 * the change nor its entry.
 */
export function securityLogFaultCases(kit: FaultKit): readonly FaultCase[] {
  const { db, one } = kit
  const logged = async (id: string) =>
    (await one('select 1 from portcullis_security_log where id = $1', [id])) !== undefined
  const account = async () => {
    const accountId = randomUUID()
    await new PostgresAccountStore({ client: db.client }).createAccount({
      accountId,
      username: `fault-${randomUUID().slice(0, 12)}`,
      passwordHash: '$argon2id$x',
      now: new Date(),
    })
    return accountId
  }
  const audit = (accountId: string, type: string) =>
    entries.entryOf({ type, at: new Date(), accountId, actorId: 'admin-1', reason: 'fault test' })
  /** The whole outcome: the change and its entry both, or neither. */
  const whole = async (changed: boolean, id: string, what: string) => {
    const entry = await logged(id)
    if (changed !== entry) return partial(`${what} ${changed ? 'without' : 'with'} its audit entry`)
    return changed ? 'written' : 'untouched'
  }
  const epochOf = async (accountId: string) => {
    const row = await one<{ e: number }>(
      'select security_epoch::int as e from portcullis_accounts where account_id = $1',
      [accountId],
    )
    return row?.e
  }
  const accountCase = (
    name: string,
    change: (
      store: PostgresAccountStore,
      accountId: string,
      record: ReturnType<typeof audit>,
    ) => Promise<unknown>,
    changed: (accountId: string) => Promise<boolean>,
  ): FaultCase => ({
    name,
    table: 'portcullis_security_log',
    multiStatement: true,
    async prepare(client: PostgresClient) {
      const accountId = await account()
      const record = audit(accountId, 'administration.test')
      const store = new PostgresAccountStore({ client })
      return {
        run: () => change(store, accountId, record),
        check: async () => whole(await changed(accountId), record.id, name),
      }
    },
  })
  return [
    accountCase(
      'disabling with its audit entry',
      (store, accountId, record) =>
        store.setAccountStatus({ accountId, status: 'disabled', now: new Date(), securityLog: [record] }),
      async (accountId) =>
        (
          await one<{ s: string }>('select status as s from portcullis_accounts where account_id = $1', [
            accountId,
          ])
        )?.s === 'disabled',
    ),
    accountCase(
      'signing out everywhere with its audit entry',
      (store, accountId, record) =>
        store.bumpSecurityEpoch({ accountId, now: new Date(), securityLog: [record] }),
      async (accountId) => (await epochOf(accountId)) === 2,
    ),
    accountCase(
      'deleting with its audit entry',
      (store, accountId, record) =>
        store.deleteAccount({ accountId, now: new Date(), securityLog: [record] }),
      async (accountId) => (await epochOf(accountId)) === undefined,
    ),
    {
      name: 'revoking an API key with its audit entry',
      table: 'portcullis_security_log',
      multiStatement: true,
      async prepare(client) {
        const accountId = await account()
        const keyId = randomBytes(12).toString('base64url')
        await new PostgresApiKeyStore({ client: db.client }).create({
          keyId,
          ownerId: accountId,
          ownerKind: 'user',
          digest: new Uint8Array(randomBytes(32)),
          pepperVersion: 'v1',
          restrictions: { scopes: ['reports:read'] },
          createdAt: new Date(),
        })
        const record = audit(accountId, 'administration.api_key_revoked')
        const store = new PostgresApiKeyStore({ client })
        return {
          run: () => store.revoke(keyId, new Date(), { securityLog: [record] }),
          async check() {
            const row = await one<{ r: boolean }>(
              'select revoked_at is not null as r from portcullis_api_keys where key_id = $1',
              [keyId],
            )
            return whole(row?.r === true, record.id, 'an API key revoked')
          },
        }
      },
    },
    {
      name: 'disconnecting a grant with its audit entry',
      table: 'portcullis_security_log',
      multiStatement: true,
      async prepare(client) {
        const accountId = await account()
        const grantId = randomBytes(16).toString('base64url')
        const expiresAt = new Date(Date.now() + 3_600_000)
        await new PostgresOAuthServerStore({ client: db.client }).upsert({
          model: 'Grant',
          id: grantId,
          payload: {
            jti: grantId,
            kind: 'Grant',
            accountId,
            clientId: 'client-fault',
            openid: { scope: 'openid' },
            iat: Math.floor(Date.now() / 1000),
            exp: Math.floor(expiresAt.getTime() / 1000),
          },
          expiresAt,
        })
        const record = audit(accountId, 'administration.grant_revoked')
        const store = new PostgresOAuthServerStore({ client })
        return {
          run: () => store.disconnect(accountId, grantId, { securityLog: [record] }),
          async check() {
            const live =
              (await new PostgresOAuthServerStore({ client: db.client }).status(grantId)) !== undefined
            return whole(!live, record.id, 'a grant ended')
          },
        }
      },
    },
  ]
}
