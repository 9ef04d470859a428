import { generateSecrets } from '../secrets/generate.js'
import { buildKeyMaterial } from '../secrets/key-material.js'
import { type Arguments, onlyOptions, UsageError } from './arguments.js'
import { type CliEnvironment, cliSecrets } from './environment.js'

/**
 * `secrets generate`: prints a fresh secrets document (JSON) on stdout, to put into a secret store and hand
 * to the app as `PORTCULLIS_SECRETS`; nothing is written to disk. `secrets check`: loads the secrets the
 * app would use (the variable or the file), imports every key and prints versions and key ids only.
 */
export async function secretsCommand(args: Arguments, cli: CliEnvironment): Promise<number> {
  onlyOptions(args, [])
  const [action, ...extra] = args.positional
  if (extra.length > 0) throw new UsageError('too many arguments')
  if (action === 'generate') {
    if (process.stdout.isTTY)
      cli.stderr.write('note: this is key material; pipe it into your secret store instead of a terminal\n')
    cli.print(JSON.stringify(await generateSecrets()))
    return 0
  }
  if (action === 'check') {
    const { secrets, origin } = await cliSecrets(cli)
    const keys = await buildKeyMaterial(secrets)
    cli.print(
      `secrets ${origin.kind === 'file' ? `file ${origin.path}` : `from ${origin.variable}`}: every key imports`,
    )
    cli.print(
      `  protector      active ${secrets.protector.active.version}; retained ${secrets.protector.retained.map((s) => s.version).join(', ') || 'none'}`,
    )
    cli.print(
      `  api-key pepper active ${secrets.apiKeyPepper.active.version}; retained ${secrets.apiKeyPepper.retained.map((s) => s.version).join(', ') || 'none'}`,
    )
    cli.print(`  local tokens   signing key ${keys.localSigningKeys.active.kid}`)
    cli.print(`  workload demo  signing key ${keys.workloadSigner.publicJwk.kid}`)
    return 0
  }
  throw new UsageError('secrets takes generate or check')
}
