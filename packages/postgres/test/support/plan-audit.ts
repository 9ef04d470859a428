// What the query-plan audit expects of the stores' statements: which tables grow with users, and the few
// statements known to read a share of a table, each with its reason. Shared by the CI test at 10^5
// accounts (test/query-plans.test.ts) and the scale benchmark at 10^6 (bench/scale.bench.ts).
import { runSuite } from '@portcullis/conformance'
import { SCALE_GRANT_TABLES, SCALE_TABLES } from '@portcullis/database-tooling/scale-fixture'
import type pg from 'pg'
import type { MigratedDatabase } from './database.js'
import { type CapturedStatement, captureStatements, describePlan, judgePlan, planOf } from './query-plans.js'
import { STATEMENT_DRIVERS } from './statement-drivers.js'

/** Tables filled by the fixture that do not grow with users, and why. */
const NOT_GROWING: Readonly<Record<string, string>> = {
  portcullis_local_account_invites: 'invites are issued by administrators, a few at a time',
}
export const GROWING = new Set(
  [...SCALE_TABLES, ...SCALE_GRANT_TABLES]
    .map((table) => table.table)
    .filter((table) => !(table in NOT_GROWING)),
)

/**
 * Statements whose plan is known to read a share of a table, each with the problems it may have and why.
 * Any other problem of the same statement still fails, and an entry that matches nothing fails too.
 */
export const KNOWN: readonly { statement: RegExp; problems: RegExp; reason: string }[] = [
  {
    statement:
      /^delete from "portcullis_(passkey_challenges|step_up_credentials)" where "portcullis_\w+"\."expires_at" <= \$1$/,
    problems: /^estimated rows grow with the table/,
    reason:
      'purgeExpired of the passkey-challenge and step-up ports: one DELETE of every expired row, through the ' +
      'expires_at index; sweepExpired deletes the same rows in bounded batches and is the scheduled path',
  },
  {
    statement: /^with "due" as \(select "retry_id" from "portcullis_oauth_revocation_retries"/,
    problems: /^(Seq Scan on portcullis_oauth_revocation_retries|estimated rows grow with the table)/,
    reason:
      'the revocation drain (a job, not a request) joins its leased batch back to the retries table: with ' +
      '10^3 retries waiting the planner hashes the whole table instead of one key lookup per leased row ' +
      '(at 10^6 accounts, 10^4 retries, the bench finds key lookups). A store change would make it ' +
      'independent of size: update ... where retry_id = any(array(select ...))',
  },
  {
    statement: /^delete from portcullis_\w+ where ctid = any\(array\(/,
    problems: /^Sort of \d+ rows estimated/,
    reason:
      'a sweep batch (sweepExpired, purgeExpiredOAuthTransactions) sorts the expired rows when fewer are ' +
      'expected than its batch size, then deletes at most the batch; the bench bounds each batch in time',
  },
  {
    statement: /^select case\s+when left\("portcullis_\w+"\."\w+", 4\) <> 'pe1\.'/,
    problems: /./,
    reason: 'the envelope inventory counts every sealed value of a table by key version: an operator command',
  },
]

/** Runs every store's driver on `db` (a small migrated database) and captures what it sends. */
export async function captureStoreStatements(db: MigratedDatabase): Promise<Map<string, CapturedStatement>> {
  const captured = new Map<string, CapturedStatement>()
  for (const driver of STATEMENT_DRIVERS) {
    const suites = driver.suites?.(db) ?? []
    await captureStatements(captured, driver.name, async () => {
      for (const suite of suites) {
        const failed = (await runSuite(suite)).filter((result) => !result.passed)
        if (failed.length > 0)
          throw new Error(`${suite.name}: ${failed.map((result) => result.id).join(', ')}`)
      }
      await driver.run?.(db)
    })
  }
  return captured
}

export interface AuditReport {
  /** One entry per statement with a problem no KNOWN entry accepts: statement, problems and plan. */
  readonly failures: readonly string[]
  /** Reasons of KNOWN entries that matched nothing (stale). */
  readonly unused: readonly string[]
}

/** Judges every captured statement's plan on `big` against `small` (`growth` times fewer accounts). */
export async function auditPlans(
  captured: ReadonlyMap<string, CapturedStatement>,
  big: pg.ClientBase,
  small: pg.ClientBase,
  growth: number,
): Promise<AuditReport> {
  const failures: string[] = []
  const used = new Set<number>()
  for (const statement of captured.values()) {
    const plan = await planOf(big, statement)
    const judged = judgePlan(plan, await planOf(small, statement), GROWING, growth)
    const problems = judged.problems.filter((problem) => {
      const known = KNOWN.findIndex(
        (entry) => entry.statement.test(statement.text) && entry.problems.test(problem),
      )
      if (known >= 0) used.add(known)
      return known < 0
    })
    if (problems.length > 0) {
      failures.push(
        `[${statement.source}] ${statement.text.slice(0, 300)}\n  ${problems.join('\n  ')}\n${describePlan(plan)}`,
      )
    }
  }
  return { failures, unused: KNOWN.filter((_, index) => !used.has(index)).map((entry) => entry.reason) }
}
