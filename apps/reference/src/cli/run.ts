import { readConfig } from '../config.js'
import { apiKeyCommand } from './api-key-command.js'
import { type Arguments, parseArguments, UsageError } from './arguments.js'
import type { CliEnvironment } from './environment.js'
import { migrationsCommand } from './migrations-command.js'
import { protectorCommand } from './protector-command.js'
import { secretsCommand } from './secrets-command.js'
import { workloadJwtCommand } from './workload-command.js'

const USAGE = `usage: pnpm --filter @portcullis/reference cli <command>

  workload-jwt [--subject svc-reporting] [--scope S]... [--ttl SECONDS]
      print a demo workload access token (Authorization: Bearer ...)
  api-key issue --owner ID [--owner-kind service|user] [--label TEXT] [--scope S]... [--tenant T=ROLE,ROLE]... [--days N]
  api-key rotate KEY_ID [--overlap SECONDS]
  api-key revoke KEY_ID
  protector status | rotate | reencrypt | drop-retained [--batch-size N]
      rotate the OAuth protector key and re-encrypt the token vault (docs/protection.md)
  migrations
      applied and pending schema migrations (exit code 3 when some are pending)
  secrets generate | check
      print a fresh secrets document for a secret store (PORTCULLIS_SECRETS); check the secrets in use

The CLI reads the same settings as pnpm start (DATABASE_URL, PORTCULLIS_DATA_DIR, PORTCULLIS_SECRETS_FILE,
PORTCULLIS_SECRETS). With embedded storage, stop the app first: one process at a time owns its files.`

const COMMANDS: Readonly<Record<string, (args: Arguments, cli: CliEnvironment) => Promise<number>>> = {
  'workload-jwt': workloadJwtCommand,
  'api-key': apiKeyCommand,
  protector: protectorCommand,
  migrations: migrationsCommand,
  secrets: secretsCommand,
}

/** Runs one command; returns the exit code (0 done, 1 failed, 2 usage, 3 pending migrations). */
export async function runCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [name, ...rest] = argv
  const print = (line: string) => process.stdout.write(`${line}\n`)
  if (name === undefined || name === 'help' || name === '--help') {
    print(USAGE)
    return name === undefined ? 2 : 0
  }
  const command = COMMANDS[name]
  try {
    if (command === undefined) throw new UsageError(`unknown command ${name}`)
    return await command(parseArguments(rest), {
      config: readConfig(env),
      env,
      print,
      stderr: process.stderr,
    })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    process.stderr.write(`portcullis reference cli: ${message}\n`)
    if (error instanceof UsageError) process.stderr.write('run "cli help" for the commands\n')
    return error instanceof UsageError ? 2 : 1
  }
}
