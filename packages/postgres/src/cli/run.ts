import { isPortcullisError } from '@portcullis/core'
import { createPostgresClient } from '../client/postgres-client.js'
import { migrationStatus } from '../maintenance/status.js'
import { sweepExpired } from '../maintenance/sweep.js'
import { migrate } from '../migrations/migrate.js'
import { accountsUsageProblem, runAccounts } from './accounts.js'
import {
  ACTIVE_VERSION_VARIABLE,
  type KeyRingVersions,
  protectorDropRetained,
  protectorStatus,
  RETAINED_VERSIONS_VARIABLE,
  versionList,
} from './protector.js'

const USAGE = `usage: portcullis-postgres <command> [--schema <name>] [--batch-size <n>]
                           [--active-key <version>] [--retained-keys <version,...>]
                           [--reason <text>] [--actor <name>] [--limit <n>]

commands:
  migrate   apply pending migrations (one transaction, under the migration lock)
  status    list applied and pending migrations; exit code 3 when some are pending
  sweep     delete expired rows (transactions, sessions, refresh tokens, step-up credentials,
            rate-limit windows) in bounded batches
  protector status
            protector envelopes per key version and per table.column, unreadable ones apart
            (read-only; OAuth transactions past their expiry are not counted)
  protector drop-retained [<version>...]
            check that no live envelope is sealed under the retained key(s) (default: the
            retained keys given); exit code 4, naming where they are, while any is
  accounts search <id|username|email|prefix> <value> [--limit <n>]
  accounts show <accountId>
  accounts disable|enable|sign-out|delete <accountId> --reason <text> --actor <name>
            account administration: each change is written to the security log with the
            operator and the reason; disable and sign-out move the security epoch, so every
            instance refuses the account's credentials; exit code 5 for an unknown account,
            6 when the change is refused

The database comes from DATABASE_URL (never printed). --schema (or PORTCULLIS_POSTGRES_SCHEMA) names
the schema that holds the Portcullis tables. The key ring is given by version labels only (never key
material): --active-key (or ${ACTIVE_VERSION_VARIABLE}) and --retained-keys (or
${RETAINED_VERSIONS_VARIABLE}, comma-separated).`

export interface CliOutput {
  out(line: string): void
  err(line: string): void
}

interface Arguments {
  readonly command: string | undefined
  /** Words after the command (the protector action and its versions). */
  readonly operands: readonly string[]
  readonly schema?: string
  readonly batchSize?: number
  readonly ring: KeyRingVersions
  readonly reason?: string
  readonly actor?: string
  readonly limit?: number
}

const VALUED = new Set([
  '--schema',
  '--batch-size',
  '--active-key',
  '--retained-keys',
  '--reason',
  '--actor',
  '--limit',
])

function parse(argv: readonly string[], env: NodeJS.ProcessEnv): Arguments | string {
  const words: string[] = []
  const values = new Map<string, string>()
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? ''
    if (VALUED.has(argument)) {
      const value = argv[index + 1]
      index += 1
      if (value === undefined) return `${argument} needs a value`
      values.set(argument, value)
    } else if (argument === '--help' || argument === '-h') {
      return ''
    } else if (argument.startsWith('-')) {
      return `unexpected argument ${JSON.stringify(argument)}`
    } else {
      words.push(argument)
    }
  }
  const [command, ...operands] = words
  if (command !== 'protector' && command !== 'accounts' && operands.length > 0)
    return `unexpected argument ${JSON.stringify(operands[0])}`
  const schema = values.get('--schema') ?? env.PORTCULLIS_POSTGRES_SCHEMA
  let batchSize: number | undefined
  if (values.has('--batch-size')) {
    batchSize = Number(values.get('--batch-size'))
    if (!Number.isSafeInteger(batchSize)) return '--batch-size must be an integer'
  }
  const active = versionList(values.get('--active-key') ?? env[ACTIVE_VERSION_VARIABLE], '--active-key')
  const retained = versionList(
    values.get('--retained-keys') ?? env[RETAINED_VERSIONS_VARIABLE],
    '--retained-keys',
  )
  let limit: number | undefined
  if (values.has('--limit')) {
    limit = Number(values.get('--limit'))
    if (!Number.isSafeInteger(limit)) return '--limit must be an integer'
  }
  if (typeof active === 'string') return active
  if (typeof retained === 'string') return retained
  if (active.length > 1) return '--active-key takes one key version'
  return {
    command,
    operands,
    ...(schema ? { schema } : {}),
    ...(batchSize === undefined ? {} : { batchSize }),
    ring: { ...(active[0] === undefined ? {} : { active: active[0] }), retained },
    ...(values.has('--reason') ? { reason: values.get('--reason') as string } : {}),
    ...(values.has('--actor') ? { actor: values.get('--actor') as string } : {}),
    ...(limit === undefined ? {} : { limit }),
  }
}

const PROTECTOR_ACTIONS = ['status', 'drop-retained']
const PROTECTOR_STATEMENT_TIMEOUT_MS = 600_000

/** A usage problem of the command line, or undefined when it can run. */
function usageProblem(parsed: Arguments): string | undefined {
  if (!['migrate', 'status', 'sweep', 'protector', 'accounts'].includes(parsed.command ?? '')) {
    return parsed.command === undefined ? 'a command is required' : `unknown command ${parsed.command}`
  }
  if (parsed.command === 'accounts') return accountsUsageProblem(parsed)
  if (parsed.command !== 'protector') return undefined
  const [action, ...versions] = parsed.operands
  if (!PROTECTOR_ACTIONS.includes(action ?? '')) return 'protector takes status or drop-retained'
  if (action === 'status' && versions.length > 0) return 'protector status takes no key versions'
  const bad = versionList(versions.join(','), 'drop-retained')
  return typeof bad === 'string' ? bad : undefined
}

/** Runs one CLI invocation; resolves to the process exit code. */
export async function runCli(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  output: CliOutput,
): Promise<number> {
  const parsed = parse(argv, env)
  if (typeof parsed === 'string') {
    if (parsed !== '') output.err(parsed)
    output.err(USAGE)
    return parsed === '' ? 0 : 2
  }
  const problem = usageProblem(parsed)
  if (problem !== undefined) {
    output.err(problem)
    output.err(USAGE)
    return 2
  }
  const connectionString = env.DATABASE_URL?.trim()
  if (!connectionString) {
    output.err('DATABASE_URL is not set: point it at the Postgres database that holds the Portcullis tables')
    return 2
  }
  try {
    const client = createPostgresClient({
      connectionString,
      maxConnections: 1,
      // Counting envelopes reads the token vault and TOTP enrollments in full: seconds per million rows,
      // more on a busy server, so the protector commands allow 10 minutes per statement.
      ...(parsed.command === 'protector' ? { statementTimeoutMs: PROTECTOR_STATEMENT_TIMEOUT_MS } : {}),
      ...(parsed.schema === undefined ? {} : { schema: parsed.schema }),
    })
    try {
      return await runCommand(parsed, client, output)
    } finally {
      await client.close()
    }
  } catch (error) {
    const message = isPortcullisError(error) ? `${error.code}: ${error.message}` : 'unexpected failure'
    output.err(
      `portcullis-postgres ${[parsed.command, ...parsed.operands.slice(0, 1)].join(' ')}: ${message}`,
    )
    return 1
  }
}

async function runCommand(
  parsed: Arguments,
  client: ReturnType<typeof createPostgresClient>,
  output: CliOutput,
): Promise<number> {
  if (parsed.command === 'migrate') {
    const report = await migrate(client)
    output.out(
      report.applied.length === 0
        ? `schema current at version ${report.current}`
        : `applied ${report.applied.join(', ')}; schema at version ${report.current}`,
    )
    return 0
  }
  if (parsed.command === 'accounts') return runAccounts(client, parsed, output.out, output.err)
  if (parsed.command === 'protector') {
    const [action, ...versions] = parsed.operands
    const outcome =
      action === 'status'
        ? await protectorStatus(client, parsed.ring, output.out, output.err)
        : await protectorDropRetained(client, parsed.ring, versions, output.out, output.err)
    if (typeof outcome === 'number') return outcome
    output.err(`portcullis-postgres protector ${action}: ${outcome}`)
    return 2
  }
  if (parsed.command === 'status') {
    const status = await migrationStatus(client)
    for (const applied of status.applied) {
      const flag = applied.unchanged ? '' : ' (CHANGED since applied: migrate will refuse)'
      output.out(`applied  ${applied.version} ${applied.name} ${applied.appliedAt.toISOString()}${flag}`)
    }
    for (const pending of status.pending) output.out(`pending  ${pending.version} ${pending.name}`)
    const current = Math.max(0, ...status.applied.map((migration) => migration.version))
    const version = current === 0 ? '' : `; schema at version ${current}`
    output.out(`${status.applied.length} applied, ${status.pending.length} pending${version}`)
    return status.pending.length > 0 ? 3 : 0
  }
  const report = await sweepExpired(client, {
    ...(parsed.batchSize === undefined ? {} : { batchSize: parsed.batchSize }),
  })
  for (const [table, count] of Object.entries(report.deleted)) output.out(`${table}: ${count} deleted`)
  if (report.impersonationsEnded > 0) {
    output.out(`impersonations past their bound: ${report.impersonationsEnded} ended`)
  }
  if (report.more) output.out('more expired rows remain: run sweep again')
  return 0
}
