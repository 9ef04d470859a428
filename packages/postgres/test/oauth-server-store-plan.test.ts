// The authorization server's lookups at scale: with tens of thousands of entries stored, the statements
// `PostgresOAuthServerStore` sends (captured from the wire, not retyped) are planned on indexes, never as a
// sequential scan of the entries or the accounts table.
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { PostgresOAuthServerStore } from '../src/index.js'
import { migratedDatabase } from './support/database.js'

const GRANTS = 10_000
const ACCOUNTS = 2_000
const NOW = Date.UTC(2031, 0, 1)
const db = await migratedDatabase()
afterAll(() => db.close())

beforeAll(async () => {
  const query = (text: string, values: unknown[] = []) => db.client.pool.query(text, values)
  await query(
    `insert into portcullis_accounts (account_id, security_epoch, status, created_at, updated_at)
     select 'account-' || i, 1, 'active', now(), now() from generate_series(1, $1::int) as i`,
    [ACCOUNTS],
  )
  // Each grant: the Grant row, an access token, a refresh token and an interaction; a device code per
  // tenth grant. 4.1 x 10^4 rows.
  await query(
    `insert into portcullis_oauth_server_entries (model, id, payload, grant_id, account_id, client_id,
       security_epoch, expires_at, created_at)
     select 'Grant', 'grant-' || i, jsonb_build_object('accountId', 'account-' || (i % $2::int)),
            'grant-' || i, 'account-' || (i % $2::int), 'client-' || (i % 7), 1,
            to_timestamp($3::double precision) + interval '14 days', to_timestamp($3::double precision)
       from generate_series(1, $1::int) as i`,
    [GRANTS, ACCOUNTS, NOW / 1000],
  )
  await query(
    `insert into portcullis_oauth_server_entries (model, id, payload, grant_id, uid, user_code, expires_at,
       created_at)
     select model, model || '-' || i, '{}'::jsonb, 'grant-' || i,
            case when model = 'Interaction' then 'uid-' || i end,
            case when model = 'DeviceCode' then 'code-' || i end,
            to_timestamp($2::double precision) + interval '1 hour', to_timestamp($2::double precision)
       from generate_series(1, $1::int) as i,
            unnest(array['AccessToken', 'RefreshToken', 'Interaction', 'DeviceCode']) as model
      where model <> 'DeviceCode' or i % 10 = 0`,
    [GRANTS, NOW / 1000],
  )
  await query('analyze portcullis_oauth_server_entries')
  await query('analyze portcullis_accounts')
}, 60_000)

interface PlanNode {
  readonly 'Node Type': string
  readonly 'Relation Name'?: string
  readonly 'Index Name'?: string
  readonly Plans?: readonly PlanNode[]
}

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)]

interface Statement {
  readonly text: string
  readonly values: unknown[]
}

/** Runs `call` and answers its result and the statements it sent that read or change the entries. */
async function captured<T>(call: (store: PostgresOAuthServerStore) => Promise<T>) {
  const query = vi.spyOn(pg.Client.prototype, 'query')
  try {
    const result = await call(new PostgresOAuthServerStore({ client: db.client, clock: () => NOW }))
    // drizzle sends `query(config, values)`; `config.values` when given wins, as in pg
    const statements: Statement[] = query.mock.calls
      .map(([config, values]) =>
        typeof config === 'string'
          ? { text: config, values: (values as unknown[]) ?? [] }
          : {
              text: (config as { text: string }).text,
              values: (config as { values?: unknown[] }).values ?? (values as unknown[]) ?? [],
            },
      )
      .filter(({ text }) => /portcullis_oauth_server_entries/.test(text) && !/pg_notify/.test(text))
    return { result, statements }
  } finally {
    query.mockRestore()
  }
}

async function planOf(statement: Statement): Promise<PlanNode[]> {
  const explained = await db.client.pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `explain (format json) ${statement.text}`,
    statement.values,
  )
  return nodes((explained.rows[0]?.['QUERY PLAN'] ?? [])[0]?.Plan as PlanNode)
}

const SCANNED = ['portcullis_oauth_server_entries', 'portcullis_accounts']

async function expectIndexed(statements: readonly Statement[], indexes: readonly string[]): Promise<void> {
  expect(statements.length).toBeGreaterThan(0)
  for (const statement of statements) {
    const plan = await planOf(statement)
    const summary = JSON.stringify(
      plan.map((node) => `${node['Node Type']} ${node['Index Name'] ?? node['Relation Name'] ?? ''}`),
    )
    const used = plan.flatMap((node) => node['Index Name'] ?? [])
    expect(used.length, summary).toBeGreaterThan(0)
    expect(
      used.every((name) => indexes.includes(name)),
      summary,
    ).toBe(true)
    const scans = plan.filter(
      (node) => node['Node Type'] === 'Seq Scan' && SCANNED.includes(node['Relation Name'] ?? ''),
    )
    expect(scans, summary).toEqual([])
  }
}

const PKEY = 'portcullis_oauth_server_entries_pkey'
const ACCOUNTS_PKEY = 'portcullis_accounts_pkey'

describe(`PostgresOAuthServerStore with ${GRANTS} grants and 4 x 10^4 entries`, () => {
  it('status: one statement, the grant and its account by primary key', async () => {
    const { result, statements } = await captured((store) => store.status('grant-4321'))
    expect(result).toEqual({ grantId: 'grant-4321', accountId: 'account-321', clientId: 'client-2' })
    expect(statements).toHaveLength(1)
    await expectIndexed(statements, [PKEY, ACCOUNTS_PKEY])
  })

  it('find by interaction uid and by user code: the (model, uid) and (model, user_code) indexes', async () => {
    const byUid = await captured((store) => store.find('Interaction', { uid: 'uid-777' }))
    expect(byUid.result?.id).toBe('Interaction-777')
    await expectIndexed(byUid.statements, ['portcullis_oauth_server_entries_uid_idx'])
    const byCode = await captured((store) => store.find('DeviceCode', { userCode: 'code-770' }))
    expect(byCode.result?.id).toBe('DeviceCode-770')
    await expectIndexed(byCode.statements, ['portcullis_oauth_server_entries_user_code_idx'])
  })

  it('find by id and consume: the primary key', async () => {
    const found = await captured((store) => store.find('AccessToken', { id: 'AccessToken-9' }))
    expect(found.result?.payload).toEqual({})
    await expectIndexed(found.statements, [PKEY])
    const consumed = await captured((store) => store.consume('RefreshToken', 'RefreshToken-9'))
    expect(consumed.result).toBe('consumed')
    await expectIndexed(consumed.statements, [PKEY])
  })

  it("list: the account's grants through the partial index, its account by primary key", async () => {
    const { result, statements } = await captured((store) => store.list('account-17'))
    expect(result.map((grant) => grant.grantId).sort()).toEqual(
      [17, 2017, 4017, 6017, 8017].map((i) => `grant-${i}`).sort(),
    )
    await expectIndexed(statements, ['portcullis_oauth_server_entries_account_idx', ACCOUNTS_PKEY])
  })

  it("revokeGrant: the grant's entries through the grant_id index", async () => {
    const { statements } = await captured((store) => store.revokeGrant('grant-55'))
    const deletes = statements.filter(({ text }) => /^delete/i.test(text))
    expect(deletes).toHaveLength(1)
    const left = await db.client.pool.query(
      `select count(*)::int as n from portcullis_oauth_server_entries where grant_id = 'grant-55'`,
    )
    expect(left.rows[0]?.n).toBe(0)
    // The rows are gone: the plan of the same DELETE still uses the index.
    await expectIndexed(deletes, ['portcullis_oauth_server_entries_grant_id_idx'])
  })
})
