import { DEMO_SERVICES } from '../directory/demo-directory.js'
import { WorkloadSigner } from '../workload/workload-signer.js'
import { type Arguments, integerOption, onlyOptions, option, UsageError } from './arguments.js'
import { type CliEnvironment, cliSecrets } from './environment.js'

/**
 * `workload-jwt [--subject svc-reporting] [--scope reports:read]... [--ttl 600]`: prints an access token
 * of the demo workload issuer. The scopes narrow what the app grants the service; they never add to it.
 */
export async function workloadJwtCommand(args: Arguments, cli: CliEnvironment): Promise<number> {
  onlyOptions(args, ['subject', 'scope', 'ttl'])
  const subject = option(args, 'subject', DEMO_SERVICES[0]?.id) ?? ''
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(subject)) throw new UsageError('--subject must be a service id')
  const scopes = args.options.get('scope') ?? ['reports:read']
  const lifetimeSeconds = integerOption(args, 'ttl', 600, 60, 3600)
  const { secrets } = await cliSecrets(cli)
  const signer = await WorkloadSigner.import(secrets.workloadSigner)
  cli.print(await signer.mint({ subject, scopes, lifetimeSeconds }))
  if (DEMO_SERVICES.every((service) => service.id !== subject)) {
    cli.stderr.write(
      `note: ${subject} is not a demo service; the app will answer 401 (its resolver does not know it)\n`,
    )
  }
  return 0
}
