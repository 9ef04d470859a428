import { randomBytes, randomUUID } from 'node:crypto'
import { inspect } from 'node:util'
import { isPortcullisError } from '@portcullis/core'
import { accounts } from '@portcullis/core/oauth'
import {
  AESGCMOAuthTransactionProtector,
  type OAuthTransactionProtector,
  OAuthTransactionProtectorKey,
  type ProtectedEnvelope,
} from '@portcullis/core/protection'
import { afterAll, describe, expect, it } from 'vitest'
import { createPostgresClient, PostgresOAuthAccountStore } from '../src/index.js'
import { accountFixtures, NOW } from './support/accounts.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())
const { identity, tokens } = accountFixtures(db)

/** A protector the test rotates underneath the stores that hold it. */
class Ring implements OAuthTransactionProtector {
  constructor(public current: AESGCMOAuthTransactionProtector) {}
  get activeKeyVersion() {
    return this.current.activeKeyVersion
  }
  protect(plaintext: Uint8Array, aad: Uint8Array) {
    return this.current.protect(plaintext, aad)
  }
  unprotect(envelope: ProtectedEnvelope, aad: Uint8Array) {
    return this.current.unprotect(envelope, aad)
  }
}

const key = (version: string) => new OAuthTransactionProtectorKey(version, randomBytes(32))
const ring = (active: OAuthTransactionProtectorKey, ...retainedKeys: OAuthTransactionProtectorKey[]) =>
  new AESGCMOAuthTransactionProtector({ activeKey: active, retainedKeys })

function storeFor(protector: OAuthTransactionProtector, provider = `idp-${randomUUID()}`) {
  return new PostgresOAuthAccountStore({ client: db.client, provider, clientId: 'client-1', protector })
}

async function retained(store: PostgresOAuthAccountStore) {
  const retainedTokens = tokens('reencrypt')
  const { link } = await store.login({
    identity: identity(store.provider),
    grant: { scopes: ['openid'] },
    tokens: retainedTokens,
    provisionUnknown: true,
    now: NOW,
  })
  return { providerAccountId: link.providerAccountId, tokens: retainedTokens }
}

async function storedEnvelope(providerAccountId: string): Promise<string | null> {
  const { rows } = await db.client.pool.query<{ envelope: string | null }>(
    'select envelope from portcullis_oauth_token_vault where provider_account_id = $1',
    [providerAccountId],
  )
  return rows[0]?.envelope ?? null
}

describe('PostgresOAuthAccountStore re-encryption', () => {
  it('reports a damaged envelope column (no key version to read) and leaves it as it is', async () => {
    const oldKey = key('2031-01')
    const keys = new Ring(ring(oldKey))
    const store = storeFor(keys)
    const damaged = await retained(store)
    await db.client.pool.query(
      `update portcullis_oauth_token_vault set envelope = 'not an envelope' where provider_account_id = $1`,
      [damaged.providerAccountId],
    )
    keys.current = ring(key('2031-03'), oldKey)
    const report = await accounts.reencryptOAuthVault({ stores: [store], protector: keys })
    expect(report.unreadable).toEqual([
      expect.objectContaining({
        kind: 'vault-tokens',
        providerAccountId: damaged.providerAccountId,
        keyVersion: null,
      }),
    ])
    expect(await storedEnvelope(damaged.providerAccountId)).toBe('not an envelope')
  })

  it('tells key versions apart when one label is a prefix of another ("2031" and "2031.03")', async () => {
    const dotted = key('2031.03')
    const keys = new Ring(ring(dotted))
    const store = storeFor(keys)
    const entry = await retained(store)
    keys.current = ring(key('2031'), dotted)
    const report = await accounts.reencryptOAuthVault({ stores: [store], protector: keys })
    expect(report).toMatchObject({ scanned: 1, resealed: 1, unreadable: [] })
    expect((await storedEnvelope(entry.providerAccountId))?.startsWith('pe1.2031.')).toBe(true)
    expect((await storedEnvelope(entry.providerAccountId))?.startsWith('pe1.2031.03.')).toBe(false)
  })

  it('re-seals only its own provider registration: another registration on the same tables is untouched', async () => {
    const oldKey = key('2031-01')
    const keys = new Ring(ring(oldKey))
    const mine = storeFor(keys)
    const theirs = storeFor(keys)
    const own = await retained(mine)
    const other = await retained(theirs)
    const before = await storedEnvelope(other.providerAccountId)
    keys.current = ring(key('2031-03'), oldKey)
    const report = await accounts.reencryptOAuthVault({ stores: [mine], protector: keys })
    expect(report).toMatchObject({ scanned: 1, resealed: 1 })
    expect((await storedEnvelope(own.providerAccountId))?.startsWith('pe1.2031-03.')).toBe(true)
    expect(await storedEnvelope(other.providerAccountId)).toBe(before)
    // A rewrite naming the other registration's record changes nothing either.
    const [stale] = await theirs.listStaleEnvelopes({ activeKeyVersion: '2031-03', limit: 10 })
    expect(stale).toBeDefined()
    if (stale?.kind !== 'vault-tokens' || stale.envelope === null) return
    const aad = accounts.vaultAssociatedData(
      theirs.provider,
      'client-1',
      other.providerAccountId,
      stale.version,
    )
    const envelope = await keys.protect(await keys.unprotect(stale.envelope, aad), aad)
    expect(await mine.rewriteEnvelope({ stale, envelope })).toBe(false)
    expect(await storedEnvelope(other.providerAccountId)).toBe(before)
  })

  it('a database outage is postgres.unavailable for both operations, and leaks no connection string', async () => {
    const down = createPostgresClient({
      connectionString: 'postgres://app:s3cret-db-password@127.0.0.1:1/portcullis',
      maxConnections: 1,
    })
    try {
      const keys = new Ring(ring(key('2031-03')))
      const outage = new PostgresOAuthAccountStore({
        client: down,
        provider: 'idp',
        clientId: 'client-1',
        protector: keys,
      })
      const stale: accounts.StaleVaultEnvelope = {
        kind: 'vault-tokens',
        providerAccountId: 'pa_x',
        version: 1,
        envelope: { keyVersion: '2031-01', ciphertext: new Uint8Array(40) },
      }
      for (const attempt of [
        () => outage.listStaleEnvelopes({ activeKeyVersion: '2031-03', limit: 10 }),
        () =>
          outage.rewriteEnvelope({
            stale,
            envelope: { keyVersion: '2031-03', ciphertext: new Uint8Array(40) },
          }),
        () => accounts.reencryptOAuthVault({ stores: [outage], protector: keys }),
      ]) {
        const error = await attempt().catch((caught: unknown) => caught)
        expect(isPortcullisError(error) && [error.code, error.errorClass]).toEqual([
          'postgres.unavailable',
          'unavailable',
        ])
        expect(`${String(error)} ${JSON.stringify(error)} ${inspect(error, { depth: 0 })}`).not.toContain(
          's3cret',
        )
      }
    } finally {
      await down.close()
    }
  })
})
