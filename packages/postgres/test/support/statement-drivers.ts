// What makes each store send its statements for the query-plan test: its conformance suites (every
// operation of the port, with the edge cases) and, for maintenance code, a direct run. A store is one entry.
import { randomUUID } from 'node:crypto'
import type { ConformanceSuite } from '@portcullis/conformance'
import { accountDirectorySuite, accountStoreSuite } from '@portcullis/conformance/accounts'
import {
  apiKeyDirectoryConformanceSuite,
  apiKeyStoreConformanceSuite,
} from '@portcullis/conformance/api-keys'
import { oauthServerStoreSuite } from '@portcullis/conformance/authorization-server'
import { oneTimeCodeStoreSuite } from '@portcullis/conformance/codes'
import {
  rateLimitStoreSuite,
  refreshTokenStoreSuite,
  sessionStoreSuite,
} from '@portcullis/conformance/local-accounts'
import { oauthAccountStoreSuite, oauthVaultReencryptionSuite } from '@portcullis/conformance/oauth'
import { organizationDomainStoreSuite } from '@portcullis/conformance/organization-domains'
import { joinRequestStoresSuite, organizationStoresSuite } from '@portcullis/conformance/organizations'
import { passkeyChallengeStoreSuite, passkeyStoreSuite } from '@portcullis/conformance/passkeys'
import { oauthTransactionStoreSuite } from '@portcullis/conformance/protection'
import { securityLogSuite } from '@portcullis/conformance/security-log'
import { stepUpStoreSuite } from '@portcullis/conformance/step-up'
import { totpResealingSuite, totpStoreSuite } from '@portcullis/conformance/totp'
import type { RevocationNotice } from '@portcullis/core/revocation'
import {
  inspectPostgresOAuthAccountStore,
  PostgresAccountStore,
  PostgresApiKeyStore,
  PostgresEnvelopeInventory,
  PostgresMailOutbox,
  PostgresOAuthAccountStore,
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
  purgeExpiredOAuthTransactions,
  sweepExpired,
} from '../../src/index.js'
import { postgresCodeFixture } from './codes.js'
import { type MigratedDatabase, realProtector } from './database.js'
import { postgresJoinRequestFixture } from './join-requests.js'
import { postgresOrganizationDomainFixture } from './organization-domains.js'
import { postgresOrganizationFixture } from './organizations.js'

export interface StatementDriver {
  readonly name: string
  /** Suites whose every case must pass while the statements are captured. */
  readonly suites?: (db: MigratedDatabase) => ConformanceSuite<never>[]
  /** Anything else that sends the store's statements. */
  readonly run?: (db: MigratedDatabase) => Promise<unknown>
}

const suite = <Context>(value: ConformanceSuite<Context>) => value as unknown as ConformanceSuite<never>

/** One entry per store, each with the conformance suite that drives it. */
export const STATEMENT_DRIVERS: readonly StatementDriver[] = [
  {
    name: 'PostgresAccountStore',
    suites: (db) => {
      const other = db.connect(4)
      const protector = realProtector()
      return [
        suite(
          accountStoreSuite(() => ({
            store: new PostgresAccountStore({ client: db.client }),
            peer: new PostgresAccountStore({ client: other }),
            protector,
            outbox: new PostgresMailOutbox({ client: db.client }),
            sessions: new PostgresSessionStore({ client: db.client }),
            refreshTokens: new PostgresRefreshTokenStore({ client: db.client }),
            stepUp: new PostgresStepUpStore({ client: db.client }),
            apiKeys: new PostgresApiKeyStore({ client: db.client }),
            totp: new PostgresTotpStore({ client: db.client }),
            passkeys: new PostgresPasskeyStore({ client: db.client }),
            passkeyChallenges: new PostgresPasskeyChallengeStore({ client: db.client }),
          })),
        ),
        suite(
          accountDirectorySuite(() => {
            const store = new PostgresAccountStore({ client: db.client })
            return { store, directory: store }
          }),
        ),
      ]
    },
  },
  {
    name: 'PostgresSessionStore',
    suites: (db) => {
      const other = db.connect(4)
      return [
        suite(
          sessionStoreSuite(
            () => ({
              store: new PostgresSessionStore({ client: db.client }),
              peer: new PostgresSessionStore({ client: other }),
              accounts: new PostgresAccountStore({ client: db.client }),
            }),
            { accountEpoch: true, activeOrganization: true },
          ),
        ),
      ]
    },
  },
  {
    name: 'PostgresRefreshTokenStore',
    suites: (db) => {
      const other = db.connect(4)
      return [
        suite(
          refreshTokenStoreSuite(() => ({
            store: new PostgresRefreshTokenStore({ client: db.client }),
            peer: new PostgresRefreshTokenStore({ client: other }),
          })),
        ),
      ]
    },
  },
  {
    name: 'PostgresRateLimitStore',
    suites: (db) => {
      const other = db.connect(4)
      return [
        suite(
          rateLimitStoreSuite(() => ({
            store: new PostgresRateLimitStore({ client: db.client }),
            peer: new PostgresRateLimitStore({ client: other }),
          })),
        ),
      ]
    },
  },
  {
    name: 'PostgresApiKeyStore',
    suites: (db) => [
      suite(apiKeyStoreConformanceSuite(() => new PostgresApiKeyStore({ client: db.client }))),
      suite(
        apiKeyDirectoryConformanceSuite(() => {
          const store = new PostgresApiKeyStore({ client: db.client })
          return { store, directory: store }
        }),
      ),
    ],
  },
  {
    name: 'PostgresPasskeyStore',
    suites: (db) => [
      suite(
        passkeyStoreSuite(() => ({
          store: new PostgresPasskeyStore({ client: db.client }),
          outbox: new PostgresMailOutbox({ client: db.client }),
        })),
      ),
      suite(
        passkeyChallengeStoreSuite(() => ({
          store: new PostgresPasskeyChallengeStore({ client: db.client }),
        })),
      ),
    ],
  },
  {
    name: 'PostgresTotpStore',
    suites: (db) => {
      const other = db.connect(4)
      return [
        suite(
          totpStoreSuite(() => ({
            store: new PostgresTotpStore({ client: db.client }),
            sibling: new PostgresTotpStore({ client: other }),
            outbox: new PostgresMailOutbox({ client: db.client }),
          })),
        ),
        suite(totpResealingSuite(() => ({ store: new PostgresTotpStore({ client: db.client }) }))),
      ]
    },
  },
  {
    name: 'PostgresOAuthServerStore',
    suites: (db) => [
      suite(
        oauthServerStoreSuite(async ({ clock }) => {
          // The grant notices are heard through a real listener, started for the case.
          const heard: RevocationNotice[] = []
          const listener = new PostgresRevocationNotices({ client: db.client, reconnectDelayMs: 20 })
          listener.subscribe({ revoked: (notice) => heard.push(notice), flush: () => undefined })
          await listener.start()
          return {
            store: new PostgresOAuthServerStore({ client: db.client, clock }),
            accounts: new PostgresAccountStore({ client: db.client }),
            heard: () => heard,
            outbox: new PostgresMailOutbox({ client: db.client }),
            dispose: () => listener.close(),
          }
        }),
      ),
    ],
  },
  {
    name: 'PostgresOneTimeCodeStore',
    suites: (db) => [suite(oneTimeCodeStoreSuite(postgresCodeFixture(db.client, db.connect(4))))],
  },
  {
    name: 'PostgresOrganizationStore',
    suites: (db) => [suite(organizationStoresSuite(postgresOrganizationFixture(db.client, db.connect(4))))],
  },
  {
    name: 'PostgresOrganizationStore (join requests)',
    suites: (db) => [suite(joinRequestStoresSuite(postgresJoinRequestFixture(db.client, db.connect(4))))],
  },
  {
    name: 'PostgresOrganizationDomainStore',
    suites: (db) => [
      suite(organizationDomainStoreSuite(postgresOrganizationDomainFixture(db.client, db.connect(4)))),
    ],
  },
  {
    name: 'PostgresStepUpStore',
    suites: (db) => [
      suite(stepUpStoreSuite(() => ({ store: new PostgresStepUpStore({ client: db.client }) }))),
    ],
  },
  {
    name: 'PostgresOAuthAccountStore',
    suites: (db) => {
      const protector = realProtector()
      return [
        suite(
          oauthAccountStoreSuite(() => {
            const accountStore = new PostgresAccountStore({ client: db.client })
            return {
              store: accountStore.oauth({ provider: 'example-idp', clientId: 'client-1', protector }),
              accountStore,
              inspector: inspectPostgresOAuthAccountStore(db.client),
              outbox: new PostgresMailOutbox({ client: db.client }),
            }
          }),
        ),
        suite(
          oauthVaultReencryptionSuite((sealing) => ({
            store: new PostgresOAuthAccountStore({
              client: db.client,
              provider: `idp-${randomUUID()}`,
              clientId: 'client-1',
              protector: sealing,
            }),
            inspector: inspectPostgresOAuthAccountStore(db.client),
          })),
        ),
      ]
    },
  },
  {
    name: 'PostgresOAuthTransactionStore',
    suites: (db) => [
      suite(
        oauthTransactionStoreSuite(() => ({
          store: new PostgresOAuthTransactionStore({ client: db.client, protector: realProtector() }),
          // A test's own read (a comment first, so the capture leaves it out).
          inspectStoredForm: async () =>
            (await db.client.pool.query('/* inspection */ select * from portcullis_oauth_transactions')).rows,
        })),
      ),
    ],
    run: (db) => purgeExpiredOAuthTransactions(db.client, { now: new Date() }),
  },
  {
    name: 'PostgresSecurityLog',
    suites: (db) => {
      const other = db.connect(4)
      return [
        suite(
          securityLogSuite(() => ({
            log: new PostgresSecurityLog({ client: db.client }),
            peer: new PostgresSecurityLog({ client: other }),
          })),
        ),
      ]
    },
  },
  {
    name: 'maintenance',
    run: async (db) => {
      await sweepExpired(db.client, { batchSize: 10, maxBatches: 2 })
      await new PostgresEnvelopeInventory({ client: db.client }).count()
    },
  },
]
