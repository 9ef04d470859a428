// Postgres refresh compare-and-swap (DESIGN.md section 5): 32 concurrent refreshers, exactly one
// winner per version, and throughput >= 0.6x a bare single-row conditional UPDATE loop. Rounds are
// short and many (15 paired rounds of 1 s, alternating which side goes first), so the median ratio
// holds still while the machine's speed drifts; every round's ratio is printed.
//
// One operation is one round of 32 refreshers racing on one provider account. Each candidate
// refresher is its own `OAuthAccountService` (as 32 app instances would be, so no shared single
// flight): read and open the tokens, ask the provider (in process and instant: this measures the
// store, not HTTP), seal and swap; a loser re-reads the winner's tokens. The baseline does the same
// statements on a bare two-column row: read the version, conditional UPDATE, losers read again.
// Where the difference goes (report only): the same bare loop on a row shaped like the vault's (the same
// columns, key and sizes: what Postgres itself pays for the wider row), and the store against that loop
// (what the store's own code costs: statement building and row mapping, opening and sealing the tokens).
// Both do the same round trips (one read, one conditional UPDATE, a re-read for each loser), in no
// transaction and under no lock but the row's own.
import { randomBytes } from 'node:crypto'
import { compareOps, finish } from '@portcullis/bench'
import { accounts } from '@portcullis/core/oauth'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { createPostgresClient, migrate, PostgresOAuthAccountStore } from '@portcullis/postgres'

const REFRESHERS = 32
const database = await createTestDatabase()
const client = createPostgresClient({
  connectionString: database.connectionString,
  maxConnections: REFRESHERS,
})

/** Counts compare-and-swap attempts and winners per expected version. */
class WinnerLedger {
  readonly attempts = new Map<number, number>()
  readonly winners = new Map<number, number>()

  record(expectedVersion: number, won: boolean): void {
    this.attempts.set(expectedVersion, (this.attempts.get(expectedVersion) ?? 0) + 1)
    if (won) this.winners.set(expectedVersion, (this.winners.get(expectedVersion) ?? 0) + 1)
  }

  /** Versions whose attempts did not produce exactly one winner. */
  violations(): number[] {
    return [...this.attempts.keys()].filter((version) => this.winners.get(version) !== 1)
  }

  report(name: string): boolean {
    const attempts = [...this.attempts.values()].reduce((sum, count) => sum + count, 0)
    const violations = this.violations()
    console.log(
      `${name}: ${this.attempts.size} versions, ${attempts} swap attempts, ` +
        (violations.length === 0
          ? 'exactly one winner per version'
          : `VIOLATION at versions ${violations.slice(0, 10).join(', ')}`),
    )
    return violations.length === 0
  }
}

try {
  await migrate(client)
  const protector = new AESGCMOAuthTransactionProtector({
    activeKey: new OAuthTransactionProtectorKey('bench-1', randomBytes(32)),
  })
  const store = new PostgresOAuthAccountStore({ client, provider: 'bench-idp', clientId: 'bench', protector })
  const tokens = (label: string) =>
    new accounts.ProviderTokenSet({
      accessToken: `access-${label}`,
      refreshToken: `refresh-${label}`,
      scopes: ['openid', 'calendar.read'],
      expiresAt: new Date(Date.now() + 3_600_000),
    })
  const login = await store.login({
    identity: { provider: 'bench-idp', issuer: 'https://idp.bench/', subject: 'bench-person' },
    grant: { scopes: ['openid', 'calendar.read'] },
    tokens: tokens('initial'),
    provisionUnknown: true,
    now: new Date(),
  })
  const providerAccountId = login.link.providerAccountId

  const candidateLedger = new WinnerLedger()
  /** The store as every refresher sees it, with each swap's outcome recorded. */
  const observed: accounts.OAuthAccountStore = {
    provider: store.provider,
    clientId: store.clientId,
    getAccount: (accountId) => store.getAccount(accountId),
    login: (request) => store.login(request),
    link: (request) => store.link(request),
    upgradeScopes: (request) => store.upgradeScopes(request),
    unlink: (request) => store.unlink(request),
    resolveLink: (request) => store.resolveLink(request),
    getTokens: (id) => store.getTokens(id),
    async replaceTokens(request) {
      const result = await store.replaceTokens(request)
      candidateLedger.record(request.expectedVersion, result !== null)
      return result
    },
    discardTokens: (request) => store.discardTokens(request),
    stageRevocationRetry: (request) => store.stageRevocationRetry(request),
    claimRevocationRetries: (request) => store.claimRevocationRetries(request),
    completeRevocationRetry: (request) => store.completeRevocationRetry(request),
  }
  let issued = 0
  const tokenEndpoint: accounts.TokenEndpointClient = {
    async refresh() {
      issued += 1
      return { kind: 'refreshed', tokens: { accessToken: `access-${issued}`, expiresIn: 3600 } }
    },
    async revoke() {},
  }
  const refreshers = Array.from(
    { length: REFRESHERS },
    () => new accounts.OAuthAccountService({ store: observed, tokenEndpoint }),
  )

  await client.pool.query('create table bench_cas (id integer primary key, version bigint not null)')
  await client.pool.query('insert into bench_cas (id, version) values (1, 1)')
  const baselineLedger = new WinnerLedger()
  // Named (prepared) statements, as the store's refresh path uses: the fastest bare loop pg offers.
  const read = { name: 'bench_cas_read', text: 'select version from bench_cas where id = 1' }
  const swap = {
    name: 'bench_cas_swap',
    text: 'update bench_cas set version = $2 where id = 1 and version = $1',
  }
  async function bareRefresher(): Promise<void> {
    const current = await client.pool.query<{ version: string }>(read)
    const version = Number(current.rows[0]?.version)
    const swapped = await client.pool.query({ ...swap, values: [version, version + 1] })
    baselineLedger.record(version, swapped.rowCount === 1)
    if (swapped.rowCount !== 1) await client.pool.query(read)
  }

  // The vault row as the store keeps it, copied (same sizes) into a table of the same shape.
  const stored = await client.pool.query<{ envelope: string; scopes: string[]; expires_at: Date }>(
    'select envelope, scopes, expires_at from portcullis_oauth_token_vault where provider_account_id = $1',
    [providerAccountId],
  )
  const found = stored.rows[0]
  if (found === undefined) throw new Error('the vault row is missing')
  const shape = found
  await client.pool.query(
    `create table bench_cas_wide (provider_account_id text primary key, provider text not null,
       client_id text not null, version bigint not null check (version >= 1), envelope text, scopes text[],
       expires_at timestamptz,
       check ((envelope is null) = (scopes is null) and (envelope is null) = (expires_at is null)))`,
  )
  await client.pool.query(`insert into bench_cas_wide values ($1, 'bench-idp', 'bench', 1, $2, $3, $4)`, [
    providerAccountId,
    shape.envelope,
    shape.scopes,
    shape.expires_at,
  ])
  const wideLedger = new WinnerLedger()
  const wideRead = {
    name: 'bench_cas_wide_read',
    text: `select version, envelope, scopes, expires_at from bench_cas_wide
           where provider_account_id = $1 and provider = $2 and client_id = $3 and envelope is not null`,
  }
  const wideSwap = {
    name: 'bench_cas_wide_swap',
    text: `update bench_cas_wide set version = $4::bigint, envelope = $5::text, scopes = $6::text[],
             expires_at = $7::timestamptz
           where provider_account_id = $1 and provider = $2 and client_id = $3 and envelope is not null
             and version = $8`,
  }
  // the same length of sealed text every time, as the store writes
  const sealedLength = shape.envelope.length
  const key = [providerAccountId, 'bench-idp', 'bench']
  async function wideRefresher(): Promise<void> {
    const current = await client.pool.query<{ version: string }>({ ...wideRead, values: key })
    const version = Number(current.rows[0]?.version)
    const swapped = await client.pool.query({
      ...wideSwap,
      values: [
        ...key,
        version + 1,
        randomBytes(sealedLength).toString('base64url').slice(0, sealedLength),
        shape.scopes,
        shape.expires_at.toISOString(),
        version,
      ],
    })
    wideLedger.record(version, swapped.rowCount === 1)
    if (swapped.rowCount !== 1) await client.pool.query({ ...wideRead, values: key })
  }
  const bare = {
    name: 'bare conditional UPDATE',
    fn: () => Promise.all(Array.from({ length: REFRESHERS }, bareRefresher)),
  }
  const wide = {
    name: 'bare conditional UPDATE, vault-shaped row',
    fn: () => Promise.all(Array.from({ length: REFRESHERS }, wideRefresher)),
  }
  await compareOps({
    title:
      'Refresh CAS, where the time goes: the bare loop on a vault-shaped row vs on a two-column row (report only: the wider row in Postgres)',
    durationMs: 1000,
    rounds: 5,
    baseline: bare,
    candidate: wide,
  })
  await compareOps({
    title:
      'Refresh CAS, where the time goes: the store vs the bare loop on a vault-shaped row (report only: the store code, tokens opened and sealed)',
    durationMs: 1000,
    rounds: 5,
    baseline: wide,
    candidate: {
      name: 'PostgresOAuthAccountStore refresh',
      fn: async () => {
        const outcomes = await Promise.all(refreshers.map((service) => service.refresh(providerAccountId)))
        if (outcomes.some((outcome) => outcome.status !== 'refreshed')) throw new Error('a refresh failed')
      },
    },
  })
  if (!wideLedger.report('bare conditional UPDATE, vault-shaped row')) process.exitCode = 1

  await compareOps({
    id: 'refresh-cas',
    title: `Postgres refresh CAS, ${REFRESHERS} concurrent refreshers per round`,
    budget: 0.6,
    durationMs: 1000,
    rounds: 15,
    baseline: {
      name: 'bare conditional UPDATE',
      fn: () => Promise.all(Array.from({ length: REFRESHERS }, bareRefresher)),
    },
    candidate: {
      name: 'PostgresOAuthAccountStore refresh',
      fn: async () => {
        const outcomes = await Promise.all(refreshers.map((service) => service.refresh(providerAccountId)))
        if (outcomes.some((outcome) => outcome.status !== 'refreshed')) throw new Error('a refresh failed')
      },
    },
  })
  const candidateOk = candidateLedger.report('PostgresOAuthAccountStore')
  const baselineOk = baselineLedger.report('bare conditional UPDATE')
  if (!candidateOk || !baselineOk) process.exitCode = 1
  finish()
} finally {
  await client.close()
  await database.close()
}
