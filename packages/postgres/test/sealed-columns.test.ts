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
import { organizationDomainStoreSuite } from '@portcullis/conformance/organization-domains'
import { joinRequestStoresSuite, organizationStoresSuite } from '@portcullis/conformance/organizations'
import { passkeyChallengeStoreSuite, passkeyStoreSuite } from '@portcullis/conformance/passkeys'
import { oauthTransactionStoreSuite } from '@portcullis/conformance/protection'
import { securityLogSuite } from '@portcullis/conformance/security-log'
import { stepUpStoreSuite } from '@portcullis/conformance/step-up'
import { totpStoreSuite } from '@portcullis/conformance/totp'
import { CodeKeyRing, generateFlowId } from '@portcullis/core/codes'
import { type PasswordResetMessage, sealOutboxMessage } from '@portcullis/core/mail'
import { transactions } from '@portcullis/core/oauth'
import {
  associatedData,
  type OAuthTransactionProtector,
  type ProtectedEnvelope,
  serializeProtectedEnvelope,
} from '@portcullis/core/protection'
import type { RevocationNotice } from '@portcullis/core/revocation'
import { afterAll, describe, expect, it } from 'vitest'
import {
  inspectPostgresOAuthAccountStore,
  MIGRATIONS_TABLE,
  PostgresAccountStore,
  PostgresApiKeyStore,
  PostgresMailOutbox,
  PostgresNotificationSettings,
  PostgresOAuthServerStore,
  PostgresOAuthTransactionStore,
  PostgresOneTimeCodeStore,
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
import { postgresJoinRequestFixture } from './support/join-requests.js'
import { postgresOrganizationDomainFixture } from './support/organization-domains.js'
import { postgresOrganizationFixture } from './support/organizations.js'

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
    { accountEpoch: true, activeOrganization: true },
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
  passkeyStoreSuite(() => ({
    store: new PostgresPasskeyStore({ client }),
    outbox: new PostgresMailOutbox({ client }),
  })),
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
      outbox: new PostgresMailOutbox({ client }),
    }
  }),
  oauthTransactionStoreSuite(() => ({
    store: new PostgresOAuthTransactionStore({ client, protector }),
    inspectStoredForm: async () =>
      (await client.pool.query('select * from portcullis_oauth_transactions')).rows,
  })),
  totpStoreSuite(() => ({
    store: new PostgresTotpStore({ client }),
    outbox: new PostgresMailOutbox({ client }),
  })),
  oauthServerStoreSuite(({ clock }) => ({
    store: new PostgresOAuthServerStore({ client, clock }),
    accounts: new PostgresAccountStore({ client }),
    heard: () => heard,
    outbox: new PostgresMailOutbox({ client }),
  })),
  organizationStoresSuite(postgresOrganizationFixture(client, client)),
  organizationDomainStoreSuite(postgresOrganizationDomainFixture(client, client)),
  joinRequestStoresSuite(postgresJoinRequestFixture(client, client)),
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

/** A one-time code issued with a sealed payload and its sealed mail, and the outbox driven through claim,
 * retry and failure, so every column of the code, outbox and notification tables is written. Answers
 * the secrets that must appear in no column in the clear. */
async function writeCodeAndMail(now: Date): Promise<string[]> {
  const accounts = new PostgresAccountStore({ client })
  const accountId = `account-${randomUUID()}`
  const created = await accounts.createAccount({
    accountId,
    username: `sealed-${accountId}`,
    passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
    now,
  })
  if (created.outcome !== 'created') throw new Error(`account fixture: ${created.outcome}`)
  const settings = new PostgresNotificationSettings({ client })
  expect(await settings.setOptOuts({ accountId, optOuts: ['password-changed'], now })).toBe(true)

  const code = randomBytes(6).readUIntBE(0, 6).toString().padStart(15, '7')
  const linkToken = randomBytes(24).toString('base64url')
  const payloadSecret = randomBytes(24).toString('base64url')
  const id = generateFlowId()
  const purpose = 'password-reset'
  const ring = new CodeKeyRing({ version: 1, secret: randomBytes(32) })
  const { keyVersion, digest } = ring.issueDigest({ id, purpose, code })
  const message = (address: string): PasswordResetMessage => ({
    kind: 'password-reset',
    to: { address, name: 'Sealed Person' },
    locale: 'en',
    code,
    link: `https://app.example/reset?flow=${id}#code=${code}&t=${linkToken}`,
    validForMinutes: 30,
  })
  const earlier = new Date(now.getTime() - 2_000)
  const address = `sealed-${randomUUID()}@example.com`
  const payload = serializeProtectedEnvelope(
    await protector.protect(
      new TextEncoder().encode(JSON.stringify({ pendingToken: payloadSecret })),
      associatedData('portcullis.account-email.payload.v1', purpose, id, accountId),
    ),
  )
  const leased = await sealOutboxMessage(protector, message(address), { now: earlier, accountId })
  await new PostgresOneTimeCodeStore({ client }).issue({
    code: {
      id,
      purpose,
      accountId,
      address,
      digest,
      keyVersion,
      maxAttempts: 5,
      createdAt: earlier,
      expiresAt: new Date(now.getTime() + 1_800_000),
      payload,
    },
    outbox: [leased],
  })
  const outbox = new PostgresMailOutbox({ client })
  const retried = await sealOutboxMessage(protector, message(address), { now: earlier, accountId })
  const failed = await sealOutboxMessage(protector, message(address), { now: earlier, accountId: null })
  await outbox.enqueue([retried, failed])
  const claimed = await outbox.claim({ now, limit: 10, leaseSeconds: 60 })
  expect(claimed.map((record) => record.id).sort()).toEqual([leased.id, retried.id, failed.id].sort())
  await outbox.reschedule({
    id: retried.id,
    nextAttemptAt: new Date(now.getTime() + 60_000),
    error: 'smtp.timeout',
  })
  await outbox.fail({ id: failed.id, error: 'smtp.rejected', now })
  // The claimed code's digest is a keyed digest, not the code: it must not be the code in any encoding.
  return [
    code,
    linkToken,
    payloadSecret,
    Buffer.from(code).toString('base64url'),
    Buffer.from(code).toString('hex'),
  ]
}

describe('SEALED_COLUMNS', () => {
  it('names exactly the columns that hold protector envelopes after every store has written', async () => {
    for (const suite of suites) {
      const results = await runSuite(splitRaceCases(suite).others)
      const failed = results.filter((result) => !result.passed).map((result) => result.id)
      expect(failed, `${suite.name}: ${JSON.stringify(results.filter((r) => !r.passed))}`).toEqual([])
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
    const secrets = await writeCodeAndMail(now)
    expect(protector.ciphertexts.length).toBeGreaterThan(10)
    const needles = protector.ciphertexts.flatMap((bytes) => {
      const buffer = Buffer.from(bytes)
      return [buffer.toString('base64url'), buffer.toString('base64'), buffer.toString('hex')]
    })
    const columns = await portcullisColumns()
    const empty: string[] = []
    const sealed: string[] = []
    const unwritten: string[] = []
    const plaintext: string[] = []
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
      if (values.rows.some(({ value }) => secrets.some((secret) => value.includes(secret)))) {
        plaintext.push(`${table}.${column}`)
      }
    }
    // Every table and column was written, so a new one cannot hide from the search.
    // No code, link or sealed flow secret is readable in any column (digests included).
    expect({ empty, unwritten, plaintext, sealed: sealed.sort() }).toEqual({
      empty: [],
      unwritten: [],
      plaintext: [],
      sealed: SEALED_COLUMNS.map(sealedColumnName).sort(),
    })
  }, 300_000)
})
