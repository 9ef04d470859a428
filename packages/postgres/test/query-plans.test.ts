// Every statement the stores send, planned on a database the size of a real deployment. The statements
// are captured from the wire while each store's conformance suite (and the maintenance drivers) run on a
// small database; each is then planned generically (as a prepared statement is, for any values) on the
// scale fixture at CI_ACCOUNTS accounts and at a tenth of that. A plan fails, naming the statement and the
// table, on a sequential scan of a table that grows with users, a sort of an unbounded set, or a row
// estimate that grows with the table. `pnpm bench` runs the same judgement at 10^6 accounts.
import { fillScaleFixture } from '@portcullis/database-tooling/scale-fixture'
import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresClient, migrate } from '../src/index.js'
import { migratedDatabase } from './support/database.js'
import { auditPlans, captureStoreStatements, GROWING } from './support/plan-audit.js'
import { type CapturedStatement, judgePlan, type PlanNode, planOf } from './support/query-plans.js'
import { STATEMENT_DRIVERS } from './support/statement-drivers.js'

/** Accounts in the CI fixture (10^5: the planner's choices are those of 10^6, in a tenth of the time). */
const CI_ACCOUNTS = 100_000
const GROWTH = 10
const captured = new Map<string, CapturedStatement>()
const small = await migratedDatabase()
const fixtures: { big?: TestDatabase; tenth?: TestDatabase } = {}
const connections: pg.Client[] = []
afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.end()))
  await small.close()
  await fixtures.big?.close()
  await fixtures.tenth?.close()
})

async function scaleDatabase(accounts: number): Promise<{ database: TestDatabase; connection: pg.Client }> {
  const database = await createTestDatabase()
  const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 1 })
  await migrate(client)
  await client.close()
  await fillScaleFixture(database.connectionString, { accounts })
  const connection = new pg.Client({ connectionString: database.connectionString })
  await connection.connect()
  connections.push(connection)
  return { database, connection }
}

let big: pg.Client
let tenth: pg.Client
beforeAll(async () => {
  for (const [text, statement] of await captureStoreStatements(small)) captured.set(text, statement)
  const [bigOne, tenthOne] = [await scaleDatabase(CI_ACCOUNTS), await scaleDatabase(CI_ACCOUNTS / GROWTH)]
  fixtures.big = bigOne.database
  fixtures.tenth = tenthOne.database
  big = bigOne.connection
  tenth = tenthOne.connection
}, 600_000)

type Statement = Pick<CapturedStatement, 'text' | 'values'>
/** A statement written here, planned generically (for any values). */
const generic = (text: string): Statement => ({ text, values: [] })

async function judge(statement: Statement): Promise<{ problems: readonly string[]; plan: PlanNode }> {
  const plan = await planOf(big, statement)
  return { ...judgePlan(plan, await planOf(tenth, statement), GROWING, GROWTH), plan }
}

describe(`every store statement on the scale fixture (${CI_ACCOUNTS} accounts)`, () => {
  it('captures the statements of every store', () => {
    const sources = new Set([...captured.values()].map((statement) => statement.source))
    expect([...sources].sort()).toEqual(STATEMENT_DRIVERS.map((driver) => driver.name).sort())
    const tables = new Set([...captured.keys()].flatMap((text) => text.match(/portcullis_[a-z_]+/g) ?? []))
    for (const table of GROWING) expect(tables, `no captured statement reads ${table}`).toContain(table)
  })

  it('plans none with a scan, an unbounded sort or an estimate that grows with the table', async () => {
    const { failures, unused } = await auditPlans(captured, big, tenth, GROWTH)
    expect(failures.join('\n\n')).toBe('')
    expect(unused).toEqual([])
  })

  it('finds an account by its verified address through the partial unique index', async () => {
    const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)]
    const lookups = [...captured.values()].filter((each) =>
      /from "portcullis_email_addresses" .*where \("portcullis_email_addresses"\."address" = \$1 and "portcullis_email_addresses"\."verified_at" is not null\)/i.test(
        each.text,
      ),
    )
    // findAccountByVerifiedEmail, findPassword({ verifiedEmail }) and the check of addEmailAddress.
    expect(lookups.length).toBeGreaterThanOrEqual(3)
    for (const statement of lookups) {
      const { problems, plan } = await judge(statement)
      expect(problems).toEqual([])
      const used = nodes(plan).filter((node) => node['Relation Name'] === 'portcullis_email_addresses')
      expect(used.length, statement.text).toBe(1)
      expect(used[0]?.['Index Name'], statement.text).toBe('portcullis_email_addresses_verified_key')
    }
  })

  it('searches accounts (administration) through the code-point indexes of usernames and addresses', async () => {
    const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)]
    const searches = [...captured.values()].filter((each) => /collate "C" (>=|=) \$\d/i.test(each.text))
    // Exact address, prefix (with and without an upper bound): searchAccounts of the directory suite.
    expect(searches.length).toBeGreaterThanOrEqual(2)
    for (const statement of searches) {
      const { problems, plan } = await judge(statement)
      expect(problems, statement.text).toEqual([])
      const indexes = new Set(
        nodes(plan).flatMap((node) => (node['Index Name'] === undefined ? [] : [node['Index Name']])),
      )
      if (/"portcullis_passwords"\."username" collate "C" >=/i.test(statement.text)) {
        expect([...indexes], statement.text).toContain('portcullis_passwords_username_c_idx')
      }
      if (/"portcullis_email_addresses"\."address" collate "C" (>=|=)/i.test(statement.text)) {
        expect([...indexes], statement.text).toContain('portcullis_email_addresses_address_c_idx')
      }
    }
  })

  it('resolves the memberships of an account, and counts the owners of an organization, each through its own index', async () => {
    const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)]
    const pick = (pattern: RegExp) => [...captured.values()].filter((each) => pattern.test(each.text))
    const cases = [
      // membershipsOf: the resolver's one read per uncached request.
      {
        statements: pick(
          /^select .* from "portcullis_memberships" where "portcullis_memberships"\."account_id" = \$1 order by/i,
        ),
        index: 'portcullis_memberships_account_idx',
      },
      // The owner count read under the organization's lock by every demotion, removal and leave.
      {
        statements: pick(
          /^select count\(\*\)::int from "portcullis_memberships" where \("portcullis_memberships"\."organization_id" = \$1 and "portcullis_memberships"\."role" = 'owner'\)/i,
        ),
        index: 'portcullis_memberships_owners_idx',
      },
    ]
    for (const { statements, index } of cases) {
      expect(statements.length, index).toBeGreaterThanOrEqual(1)
      for (const statement of statements) {
        const { problems, plan } = await judge(statement)
        expect(problems).toEqual([])
        const used = nodes(plan).filter((node) => node['Relation Name'] === 'portcullis_memberships')
        expect(
          used.map((node) => node['Index Name']),
          statement.text,
        ).toEqual([index])
      }
    }
  })

  it('reads the security log by account and by type and time with one ordered range scan of its index', async () => {
    const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)]
    const reads = [...captured.values()].filter(
      (each) =>
        each.source === 'PostgresSecurityLog' && /^select .* from "portcullis_security_log"/i.test(each.text),
    )
    const byAccount = reads.filter((each) => /"account_id" = \$1/.test(each.text))
    const byType = reads.filter((each) => /"type" = \$1/.test(each.text))
    // The first page and the pages after a cursor, of each read.
    expect(byAccount.length).toBeGreaterThanOrEqual(2)
    expect(byType.length).toBeGreaterThanOrEqual(2)
    for (const [statements, index] of [
      [byAccount, 'portcullis_security_log_account_idx'],
      [byType, 'portcullis_security_log_type_idx'],
    ] as const) {
      for (const statement of statements) {
        const { problems, plan } = await judge(statement)
        expect(problems, statement.text).toEqual([])
        const scans = nodes(plan).filter((node) => node['Relation Name'] === 'portcullis_security_log')
        expect(
          scans.map((node) => [node['Node Type'], node['Index Name']]),
          statement.text,
        ).toEqual([['Index Scan', index]])
        expect(
          nodes(plan).some((node) => node['Node Type'] === 'Sort'),
          statement.text,
        ).toBe(false)
      }
    }
  })

  describe('fails, naming the table, on', () => {
    it('a statement without an index', async () => {
      const { problems } = await judge(
        generic('select digest from portcullis_sessions where user_agent = $1'),
      )
      expect(problems.join('\n')).toMatch(/Seq Scan on portcullis_sessions/)
    })

    it('a store statement whose index is gone', async () => {
      const statement = [...captured.values()].find((each) =>
        /from "portcullis_refresh_families" where "portcullis_refresh_families"."account_id" = \$1/i.test(
          each.text,
        ),
      )
      if (statement === undefined) throw new Error('no captured statement reads families by account')
      await big.query('begin')
      try {
        await big.query('drop index portcullis_refresh_families_account_id_idx')
        const withoutIndex = await planOf(big, statement, { inTransaction: true })
        const { problems } = judgePlan(withoutIndex, await planOf(tenth, statement), GROWING, GROWTH)
        expect(problems.join('\n')).toMatch(/Seq Scan on portcullis_refresh_families/)
      } finally {
        await big.query('rollback')
      }
      expect((await judge(statement)).problems).toEqual([])
    })

    it('a sort of an unbounded set', async () => {
      const { problems } = await judge(
        generic('select digest from portcullis_sessions where left(handle, 11) > $1 order by created_at'),
      )
      expect(problems.join('\n')).toMatch(/an unbounded sort/)
      expect(problems.join('\n')).toMatch(/estimated rows grow with the table: .*portcullis_sessions/)
    })
  })
})
