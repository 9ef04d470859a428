// Captures the statements the stores send (a logger on pg's client) and judges their generic plans on a
// database the size of a real deployment: no sequential scan of a table that grows with users, no sort
// of an unbounded set, no estimate that grows with the table.
import pg from 'pg'

export interface CapturedStatement {
  readonly text: string
  /** The values it was first sent with. */
  readonly values: readonly unknown[]
  /** The suite or driver that sent it first. */
  readonly source: string
}

/**
 * Records every distinct data statement (SELECT, INSERT, UPDATE, DELETE, WITH) any pg client sends while
 * `run` runs, labelled with `source`. Transaction control, settings and catalog reads are left out.
 */
export async function captureStatements(
  into: Map<string, CapturedStatement>,
  source: string,
  run: () => Promise<unknown>,
): Promise<void> {
  const original = pg.Client.prototype.query
  const record = (config: unknown, second: unknown) => {
    const query = typeof config === 'string' ? { text: config } : (config as Record<string, unknown> | null)
    const text = query?.text
    if (typeof text !== 'string') return
    const trimmed = text.trim()
    if (!/^(select|insert|update|delete|with)\b/i.test(trimmed)) return
    if (
      /\b(pg_catalog|information_schema|pg_notify|pg_advisory|pg_terminate_backend)\b|^select 1\b/i.test(
        trimmed,
      )
    )
      return
    // pg takes the values from the config when it has them, else from the second argument.
    const values = Array.isArray(query?.values) ? query.values : Array.isArray(second) ? second : []
    if (!into.has(trimmed)) into.set(trimmed, { text: trimmed, values, source })
  }
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    record(args[0], args[1])
    return (original as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof original
  try {
    await run()
  } finally {
    pg.Client.prototype.query = original
  }
}

export interface PlanNode {
  readonly 'Node Type': string
  readonly 'Relation Name'?: string
  readonly 'Index Name'?: string
  readonly 'Index Cond'?: string
  readonly 'Plan Rows': number
  readonly Plans?: readonly PlanNode[]
}

/**
 * The plan judged for a captured statement: its generic plan (the one a cached prepared statement keeps,
 * for any values), with each `LIMIT $n` replaced by the value it was sent with. A limit is the caller's
 * bound, not data; left a parameter, the planner guesses a tenth of the table for it.
 */
export async function planOf(
  connection: pg.ClientBase,
  statement: Pick<CapturedStatement, 'text' | 'values'>,
  options: { readonly inTransaction?: boolean } = {},
): Promise<PlanNode> {
  const text = statement.text.replace(/\blimit \$(\d+)/gi, (whole, n: string) => {
    const value = statement.values[Number(n) - 1]
    return typeof value === 'number' || typeof value === 'bigint' || /^\d+$/.test(String(value))
      ? // COALESCE with a constant first folds to the constant; the parameter keeps its inferred type.
        `limit coalesce(${String(value)}, $${n}::bigint)`
      : whole
  })
  return genericPlan(connection, text, options)
}

/**
 * The generic plan of `text` (parameters unknown, as a prepared statement is planned once for all values),
 * in a transaction of its own, or under a savepoint of the caller's open transaction (`inTransaction`).
 */
export async function genericPlan(
  connection: pg.ClientBase,
  text: string,
  options: { readonly inTransaction?: boolean } = {},
): Promise<PlanNode> {
  const parameters = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])))
  await connection.query(options.inTransaction ? 'savepoint planning' : 'begin')
  try {
    await connection.query('set local plan_cache_mode = force_generic_plan')
    await connection.query(`prepare planned_statement as ${text}`)
    const args = parameters === 0 ? '' : `(${Array.from({ length: parameters }, () => 'null').join(', ')})`
    const explained = await connection.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `explain (format json) execute planned_statement${args}`,
    )
    const plan = explained.rows[0]?.['QUERY PLAN'][0]?.Plan
    if (plan === undefined) throw new Error('EXPLAIN returned no plan')
    return plan
  } finally {
    await connection.query(options.inTransaction ? 'rollback to savepoint planning' : 'rollback')
    // A prepared statement outlives the transaction that made it.
    await connection.query('deallocate all')
  }
}

interface Visited {
  readonly node: PlanNode
  /** Below a Limit: the caller's bound caps how many rows it yields. */
  readonly limited: boolean
}

function walk(node: PlanNode, limited = false): Visited[] {
  const below = limited || node['Node Type'] === 'Limit'
  return [{ node, limited }, ...(node.Plans ?? []).flatMap((child) => walk(child, below))]
}

/** The largest row estimate of a node no Limit bounds (a Limit and what it reads are bounded by the caller). */
export function unboundedRows(plan: PlanNode): number {
  return Math.max(
    0,
    ...walk(plan)
      .filter(({ node, limited }) => !limited && node['Node Type'] !== 'Limit')
      .map(({ node }) => node['Plan Rows']),
  )
}

export interface PlanJudgement {
  /** What is wrong with the plan, one line each, naming the table; empty when the plan scales. */
  readonly problems: readonly string[]
}

/**
 * Judges a statement's generic plan on the big database against its plan on one `growth` times smaller:
 * a Seq Scan of a growing table, an index scan without a condition outside a Limit (a full index walk),
 * a Sort whose input grows with the table, or an unbounded row estimate that grows with the table.
 */
export function judgePlan(
  big: PlanNode,
  small: PlanNode,
  growing: ReadonlySet<string>,
  growth: number,
): PlanJudgement {
  const problems: string[] = []
  const grows = (bigRows: number, smallRows: number) => bigRows >= 100 && bigRows > (smallRows * growth) / 3
  for (const { node, limited } of walk(big)) {
    const table = node['Relation Name']
    const type = node['Node Type']
    if (type === 'Seq Scan' && table !== undefined && growing.has(table)) {
      problems.push(`Seq Scan on ${table} (${node['Plan Rows']} rows estimated)`)
    }
    const fullWalk = (type === 'Index Scan' || type === 'Index Only Scan') && node['Index Cond'] === undefined
    if (fullWalk && !limited && table !== undefined && growing.has(table)) {
      problems.push(
        `${type} on ${table} using ${node['Index Name']} without a condition (a walk of the whole index)`,
      )
    }
  }
  const sorts = (plan: PlanNode) => walk(plan).filter(({ node }) => node['Node Type'] === 'Sort')
  const bigSorts = sorts(big)
  const smallSorts = sorts(small)
  bigSorts.forEach(({ node }, index) => {
    const smallRows = smallSorts[index]?.node['Plan Rows'] ?? 0
    if (grows(node['Plan Rows'], smallRows)) {
      problems.push(
        `Sort of ${node['Plan Rows']} rows estimated (${smallRows} on the smaller database): an unbounded sort`,
      )
    }
  })
  const bigRows = unboundedRows(big)
  const smallRows = unboundedRows(small)
  if (grows(bigRows, smallRows)) {
    const tables = [...new Set(walk(big).flatMap(({ node }) => node['Relation Name'] ?? []))].join(', ')
    problems.push(`estimated rows grow with the table: ${smallRows} -> ${bigRows} (${tables})`)
  }
  return { problems }
}

/** One line per plan node, indented, for failure messages. */
export function describePlan(plan: PlanNode, depth = 0): string {
  const name = plan['Index Name'] ?? plan['Relation Name'] ?? ''
  const line = `${'  '.repeat(depth)}${plan['Node Type']} ${name} rows=${plan['Plan Rows']}`
  return [line, ...(plan.Plans ?? []).map((child) => describePlan(child, depth + 1))].join('\n')
}
