import { isPortcullisError } from '@portcullis/core'
import { createPostgresClient } from '../client/postgres-client.js'
import { migrationStatus } from '../maintenance/status.js'
import { sweepExpired } from '../maintenance/sweep.js'
import { migrate } from '../migrations/migrate.js'

const USAGE = `usage: portcullis-postgres <command> [--schema <name>] [--batch-size <n>]

commands:
  migrate   apply pending migrations (one transaction, under the migration lock)
  status    list applied and pending migrations; exit code 3 when some are pending
  sweep     delete expired rows (transactions, sessions, refresh tokens, step-up credentials,
            rate-limit windows) in bounded batches

The database comes from DATABASE_URL (never printed). --schema (or PORTCULLIS_POSTGRES_SCHEMA) names
the schema that holds the Portcullis tables.`

export interface CliOutput {
  out(line: string): void
  err(line: string): void
}

interface Arguments {
  readonly command: string | undefined
  readonly schema?: string
  readonly batchSize?: number
}

function parse(argv: readonly string[], env: NodeJS.ProcessEnv): Arguments | string {
  let command: string | undefined
  let schema = env.PORTCULLIS_POSTGRES_SCHEMA
  let batchSize: number | undefined
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]
    if (argument === '--schema' || argument === '--batch-size') {
      const value = argv[index + 1]
      index += 1
      if (value === undefined) return `${argument} needs a value`
      if (argument === '--schema') schema = value
      else {
        batchSize = Number(value)
        if (!Number.isSafeInteger(batchSize)) return '--batch-size must be an integer'
      }
    } else if (argument === '--help' || argument === '-h') {
      return ''
    } else if (argument?.startsWith('-') || command !== undefined) {
      return `unexpected argument ${JSON.stringify(argument)}`
    } else {
      command = argument
    }
  }
  return {
    command,
    ...(schema ? { schema } : {}),
    ...(batchSize === undefined ? {} : { batchSize }),
  }
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
  if (!['migrate', 'status', 'sweep'].includes(parsed.command ?? '')) {
    output.err(parsed.command === undefined ? 'a command is required' : `unknown command ${parsed.command}`)
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
      ...(parsed.schema === undefined ? {} : { schema: parsed.schema }),
    })
    try {
      return await runCommand(parsed, client, output)
    } finally {
      await client.close()
    }
  } catch (error) {
    const message = isPortcullisError(error) ? `${error.code}: ${error.message}` : 'unexpected failure'
    output.err(`portcullis-postgres ${parsed.command}: ${message}`)
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
  if (report.more) output.out('more expired rows remain: run sweep again')
  return 0
}
