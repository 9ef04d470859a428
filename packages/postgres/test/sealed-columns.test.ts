import { Buffer } from 'node:buffer'
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { ConformanceSuite } from '@portcullis/conformance'
import { runSuite } from '@portcullis/conformance'
import { accountStoreSuite } from '@portcullis/conformance/accounts'
import { apiKeyStoreConformanceSuite } from '@portcullis/conformance/api-keys'
import { oauthServerStoreSuite } from '@portcullis/conformance/authorization-server'
import {
  rateLimitStoreSuite,
  refreshTokenStoreSuite,
  sessionStoreSuite,
} from '@portcullis/conformance/local-accounts'
import { oauthAccountStoreSuite } from '@portcullis/conformance/oauth'
import { passkeyChallengeStoreSuite, passkeyStoreSuite } from '@portcullis/conformance/passkeys'
import { oauthTransactionStoreSuite } from '@portcullis/conformance/protection'
import { securityLogSuite } from '@portcullis/conformance/security-log'
import { stepUpStoreSuite } from '@portcullis/conformance/step-up'
import { totpStoreSuite } from '@portcullis/conformance/totp'
import { transactions } from '@portcullis/core/oauth'
import type { OAuthTransactionProtector, ProtectedEnvelope } from '@portcullis/core/protection'
import type { RevocationNotice } from '@portcullis/core/revocation'
import { afterAll, describe, expect, it } from 'vitest'
import {
  inspectPostgresOAuthAccountStore,
  MIGRATIONS_TABLE,
  PostgresAccountStore,
  PostgresApiKeyStore,
  PostgresMailOutbox,
  PostgresOAuthServerStore,
  PostgresOAuthTransactionStore,
  PostgresPasskeyChallengeStore,
  PostgresPasskeyStore,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresRevocationNotices,
  PostgresSecurityLog,
  PostgresSessionStore,
  PostgresStepUpStore,
  PostgresTotpStore,
  SEALED_COLUMNS,
  sealedColumnName,
} from '../src/index.js'
import { migratedDatabase, realProtector, splitRaceCases } from './support/database.js'

// The registry of sealed columns is complete: every store writes through its conformance suite into
// one database, every envelope its protector seals is recorded, and then every column of every
// `portcullis_` table is searched for envelopes. A column that holds one must be in SEALED_COLUMNS.

const db = await migratedDatabase()
// The authorization server's suite hears its grant notices through a real listener.
const listener = new PostgresRevocationNotices({ client: db.client, reconnectDelayMs: 20 })
const heard: RevocationNotice[] = []
listener.subscribe({ revoked: (notice) => heard.push(notice), flush: () => undefined })
await listener.start()
afterAll(async () => {
  await listener.close()
  await db.close()
})

/** Every ciphertext sealed through it, so an envelope is found in any encoding a column might use. */
class RecordingProtector implements OAuthTransactionProtector {
  readonly #inner = realProtector()
  readonly ciphertexts: Uint8Array[] = []

  get activeKeyVersion(): string {
    return this.#inner.activeKeyVersion
  }

  async protect(plaintext: Uint8Array, associatedData: Uint8Array): Promise<ProtectedEnvelope> {
    const envelope = await this.#inner.protect(plaintext, associatedData)
    this.ciphertexts.push(envelope.ciphertext)
    return envelope
  }

  unprotect(envelope: ProtectedEnvelope, associatedData: Uint8Array): Promise<Uint8Array> {
    return this.#inner.unprotect(envelope, associatedData)
  }
}

const protector = new RecordingProtector()
const client = db.client

/** Every store's suite (its cases that need no concurrent sessions), all on the one database. */
const suites: ConformanceSuite<never>[] = [
  accountStoreSuite(() => ({
    store: new PostgresAccountStore({ client }),
    peer: new PostgresAccountStore({ client }),
    protector,
    outbox: new PostgresMailOutbox({ client }),
    sessions: new PostgresSessionStore({ client }),
    refreshTokens: new PostgresRefreshTokenStore({ client }),
    stepUp: new PostgresStepUpStore({ client }),
    apiKeys: new PostgresApiKeyStore({ client }),
    totp: new PostgresTotpStore({ client }),
    passkeys: new PostgresPasskeyStore({ client }),
    passkeyChallenges: new PostgresPasskeyChallengeStore({ client }),
  })),
  sessionStoreSuite(
    () => ({
      store: new PostgresSessionStore({ client }),
      peer: new PostgresSessionStore({ client }),
      accounts: new PostgresAccountStore({ client }),
    }),
    { accountEpoch: true },
  ),
  refreshTokenStoreSuite(() => ({
    store: new PostgresRefreshTokenStore({ client }),
    peer: new PostgresRefreshTokenStore({ client }),
  })),
  rateLimitStoreSuite(() => ({
    store: new PostgresRateLimitStore({ client }),
    peer: new PostgresRateLimitStore({ client }),
  })),
  apiKeyStoreConformanceSuite(() => new PostgresApiKeyStore({ client })),
  passkeyStoreSuite(() => ({ store: new PostgresPasskeyStore({ client }) })),
  passkeyChallengeStoreSuite(() => ({ store: new PostgresPasskeyChallengeStore({ client }) })),
  stepUpStoreSuite(() => ({ store: new PostgresStepUpStore({ client }) })),
  securityLogSuite(() => ({
    log: new PostgresSecurityLog({ client }),
    peer: new PostgresSecurityLog({ client }),
  })),
  oauthAccountStoreSuite(() => {
    const accountStore = new PostgresAccountStore({ client })
    return {
      store: accountStore.oauth({ provider: 'example-idp', clientId: 'client-1', protector }),
      accountStore,
      inspector: inspectPostgresOAuthAccountStore(client),
    }
  }),
  oauthTransactionStoreSuite(() => ({
    store: new PostgresOAuthTransactionStore({ client, protector }),
    inspectStoredForm: async () =>
      (await client.pool.query('select * from portcullis_oauth_transactions')).rows,
  })),
  totpStoreSuite(() => ({ store: new PostgresTotpStore({ client }) })),
  oauthServerStoreSuite(({ clock }) => ({
    store: new PostgresOAuthServerStore({ client, clock }),
    accounts: new PostgresAccountStore({ client }),
    heard: () => heard,
  })),
] as unknown as ConformanceSuite<never>[]

interface ColumnInfo {
  readonly table: string
  readonly column: string
}

async function portcullisColumns(): Promise<ColumnInfo[]> {
  const result = await client.pool.query<ColumnInfo>(
    `select table_name as table, column_name as column from information_schema.columns
      where table_schema = current_schema() and table_name like 'portcullis\\_%' and table_name <> $1
      order by table_name, ordinal_position`,
    [MIGRATIONS_TABLE],
  )
  return result.rows
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

describe('SEALED_COLUMNS', () => {
  it('names exactly the columns that hold protector envelopes after every store has written', async () => {
    for (const suite of suites) {
      const results = await runSuite(splitRaceCases(suite).others)
      const failed = results.filter((result) => !result.passed).map((result) => result.id)
      expect(failed, suite.name).toEqual([])
    }
    // Both suites end by consuming what they create: one row each that stays.
    const digest = () => createHash('sha256').update(randomUUID()).digest('base64url')
    const now = new Date()
    const later = new Date(now.getTime() + 300_000)
    await new PostgresStepUpStore({ client }).save({
      digest: digest(),
      accountId: `account-${randomUUID()}`,
      purpose: 'payments.approve',
      securityEpoch: 1,
      sessionDigest: digest(),
      issuedAt: now,
      authenticatedAt: now,
      expiresAt: later,
    })
    await new PostgresPasskeyChallengeStore({ client }).createChallenge({
      challengeDigest: digest(),
      bindingDigest: digest(),
      ceremony: 'authentication',
      accountId: `account-${randomUUID()}`,
      sessionDigest: digest(),
      purpose: 'payments.approve',
      createdAt: now,
      expiresAt: later,
    })
    // A reauthentication transaction, the one operation that fills every optional field.
    await new PostgresOAuthTransactionStore({ client, protector }).create(
      new transactions.OAuthTransaction({
        stateDigest: randomBytes(32),
        bindingDigest: randomBytes(32),
        provider: 'example-idp',
        operation: 'reauthenticate',
        redirectUri: 'https://app.example/auth/oauth/example-idp/callback',
        returnTo: '/',
        pkceVerifier: randomBytes(32).toString('base64url'),
        nonce: randomBytes(32).toString('base64url'),
        expectedIssuer: 'https://idp.example/',
        accountId: `account-${randomUUID()}`,
        sessionBindingDigest: randomBytes(32),
        securityEpoch: 1,
        providerAccountId: `pa-${randomUUID()}`,
        stepUpPurpose: 'payments.approve',
        maxAuthenticationAge: 0,
        createdAt: now,
        expiresAt: later,
      }),
    )
    expect(protector.ciphertexts.length).toBeGreaterThan(10)
    const needles = protector.ciphertexts.flatMap((bytes) => {
      const buffer = Buffer.from(bytes)
      return [buffer.toString('base64url'), buffer.toString('base64'), buffer.toString('hex')]
    })
    const columns = await portcullisColumns()
    const empty: string[] = []
    const sealed: string[] = []
    const unwritten: string[] = []
    for (const table of new Set(columns.map((column) => column.table))) {
      const rows = await client.pool.query(`select count(*)::int as n from ${quote(table)}`)
      if (rows.rows[0].n === 0) empty.push(table)
    }
    for (const { table, column } of columns) {
      const values = await client.pool.query<{ value: string }>(
        `select ${quote(column)}::text as value from ${quote(table)} where ${quote(column)} is not null`,
      )
      if (values.rows.length === 0) unwritten.push(`${table}.${column}`)
      const holdsEnvelopes = values.rows.some(
        ({ value }) => value.includes('pe1.') || needles.some((needle) => value.includes(needle)),
      )
      if (holdsEnvelopes) sealed.push(`${table}.${column}`)
    }
    // Every table and column was written, so a new one cannot hide from the search.
    expect({ empty, unwritten, sealed: sealed.sort() }).toEqual({
      empty: [],
      unwritten: [],
      sealed: SEALED_COLUMNS.map(sealedColumnName).sort(),
    })
  }, 300_000)
})
