// Operations per second of every Postgres store next to its memory implementation (report only, no
// budget): the price of durability and of sharing state between instances, one operation at a time from
// one caller. Memory is the baseline of each paired comparison; the table at the end lists both figures.
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { compareOps, comparisons, finish, reportTable } from '@portcullis/bench'
import { MemoryAccountStore } from '@portcullis/core/accounts'
import { ApiKeyPepperRing, ApiKeyService, MemoryApiKeyStore } from '@portcullis/core/api-keys'
import {
  MemoryRateLimitStore,
  MemoryRefreshTokenStore,
  MemorySessionStore,
} from '@portcullis/core/local-accounts'
import { transactions } from '@portcullis/core/oauth'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { MemoryStepUpStore, StepUpService } from '@portcullis/core/step-up'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import {
  createPostgresClient,
  migrate,
  PostgresAccountStore,
  PostgresApiKeyStore,
  PostgresOAuthTransactionStore,
  PostgresRateLimitStore,
  PostgresRefreshTokenStore,
  PostgresSessionStore,
  PostgresStepUpStore,
} from '@portcullis/postgres'

const database = await createTestDatabase()
const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 4 })
const hex = () => createHash('sha256').update(randomBytes(32)).digest('hex')
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('bench-1', randomBytes(32)),
})

interface Pair {
  readonly name: string
  readonly memory: () => Promise<unknown>
  readonly postgres: () => Promise<unknown>
}

try {
  await migrate(client)
  const peppers = new ApiKeyPepperRing({ version: 'p1', secret: new Uint8Array(randomBytes(32)) })
  const apiKeys = async (store: MemoryApiKeyStore | PostgresApiKeyStore) => {
    const service = new ApiKeyService({ store, peppers, prefix: 'bench', digestMemo: false })
    const issued = await service.issue({ ownerId: 'svc-bench' })
    return () => Promise.resolve(service.verify(issued.value))
  }
  const stepUp = (store: MemoryStepUpStore | PostgresStepUpStore) => {
    const service = new StepUpService({ store })
    return async () => {
      const bound = {
        accountId: 'acct',
        purpose: 'payout',
        securityEpoch: 1,
        sessionBinding: `session-${randomUUID()}`,
      }
      const credential = await service.issue(bound)
      await service.consume({ ...bound, token: credential.reveal() })
    }
  }
  const redirects = new transactions.OAuthRedirectPolicy({
    callbackUris: { acme: ['https://app.example/callback'] },
  })
  const oauthTransactions = (store: transactions.OAuthTransactionStore) => {
    const service = new transactions.OAuthTransactionService({
      store,
      pepper: new Uint8Array(randomBytes(32)),
      redirects,
    })
    return async () => {
      const started = await service.start({
        provider: 'acme',
        operation: 'login',
        redirectUri: 'https://app.example/callback',
        scopes: ['openid'],
      })
      await service.consume({
        provider: 'acme',
        state: started.state,
        browserBinding: started.browserBinding,
      })
    }
  }
  const sessions = (store: MemorySessionStore | PostgresSessionStore) => {
    const now = new Date()
    const session = {
      digest: hex(),
      handle: randomBytes(16).toString('base64url'),
      accountId: 'acct-bench',
      securityEpoch: 1,
      createdAt: now,
      lastSeenAt: now,
      idleExpiresAt: new Date(now.getTime() + 3_600_000),
      absoluteExpiresAt: new Date(now.getTime() + 7_200_000),
    }
    const created = store.create({ session })
    return async () => {
      await created
      await store.get(session.digest, new Date())
    }
  }
  const refresh = (store: MemoryRefreshTokenStore | PostgresRefreshTokenStore) => {
    const now = new Date()
    let current = hex()
    const created = store.createFamily({
      familyId: randomUUID(),
      accountId: 'acct-bench',
      securityEpoch: 1,
      createdAt: now,
      absoluteExpiresAt: new Date(now.getTime() + 86_400_000),
      token: { digest: current, expiresAt: new Date(now.getTime() + 3_600_000) },
    })
    return async () => {
      await created
      const next = hex()
      const outcome = await store.rotate({
        presentedDigest: current,
        next: { digest: next, expiresAt: new Date(Date.now() + 3_600_000) },
        now: new Date(),
      })
      if (outcome.outcome !== 'rotated') throw new Error(`rotation ${outcome.outcome}`)
      current = next
    }
  }
  const rateLimits = (store: MemoryRateLimitStore | PostgresRateLimitStore) => {
    const keys = Array.from({ length: 256 }, hex)
    let next = 0
    return async () => {
      next = (next + 1) % keys.length
      await store.consume({ key: keys[next] ?? '', limit: 1_000_000, windowSeconds: 60, now: new Date() })
    }
  }
  const accounts = async (store: MemoryAccountStore | PostgresAccountStore) => {
    const username = `bench-${randomUUID()}`
    await store.createAccount({
      accountId: randomUUID(),
      username,
      passwordHash: '$argon2id$bench',
      now: new Date(),
    })
    return () => store.findPassword({ username })
  }

  const pairs: Pair[] = [
    {
      name: 'ApiKeyStore: verify (one get)',
      memory: await apiKeys(new MemoryApiKeyStore()),
      postgres: await apiKeys(new PostgresApiKeyStore({ client })),
    },
    {
      name: 'StepUpStore: issue + redeem',
      memory: stepUp(new MemoryStepUpStore()),
      postgres: stepUp(new PostgresStepUpStore({ client })),
    },
    {
      name: 'OAuthTransactionStore: begin + consume',
      memory: oauthTransactions(new transactions.MemoryOAuthTransactionStore({ protector })),
      postgres: oauthTransactions(new PostgresOAuthTransactionStore({ client, protector })),
    },
    {
      name: 'SessionStore: get',
      memory: sessions(new MemorySessionStore()),
      postgres: sessions(new PostgresSessionStore({ client })),
    },
    {
      name: 'RefreshTokenStore: rotate',
      memory: refresh(new MemoryRefreshTokenStore()),
      postgres: refresh(new PostgresRefreshTokenStore({ client })),
    },
    {
      name: 'RateLimitStore: consume',
      memory: rateLimits(new MemoryRateLimitStore()),
      postgres: rateLimits(new PostgresRateLimitStore({ client })),
    },
    {
      name: 'AccountStore: find a password by username',
      memory: await accounts(new MemoryAccountStore()),
      postgres: await accounts(new PostgresAccountStore({ client })),
    },
  ]
  for (const pair of pairs) {
    await compareOps({
      title: pair.name,
      baseline: { name: 'memory', fn: pair.memory },
      candidate: { name: 'postgres', fn: pair.postgres },
      durationMs: 400,
      rounds: 3,
    })
  }
  const rows = comparisons().filter((result) => pairs.some((pair) => pair.name === result.title))
  reportTable(
    `Store throughput (${database.source}), one caller, operations per second`,
    ['Store operation', 'Memory', 'Postgres', 'Postgres / memory'],
    rows.map((row) => [
      row.title,
      row.baseline.perSecond.toFixed(0),
      row.candidate.perSecond.toFixed(0),
      `${row.ratio.toFixed(3)}x`,
    ]),
  )
  finish()
} finally {
  await client.close()
  await database.close()
}
