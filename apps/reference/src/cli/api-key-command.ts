import { ApiKeyService, type IssuedApiKey } from '@portcullis/core/api-keys'
import type { CredentialRestrictions } from '@portcullis/core/authentication'
import { PostgresApiKeyStore } from '@portcullis/postgres'
import { buildKeyMaterial } from '../secrets/key-material.js'
import { type Arguments, integerOption, onlyOptions, option, UsageError } from './arguments.js'
import { type CliEnvironment, cliSecrets, withDatabase } from './environment.js'

function restrictionsOf(args: Arguments): CredentialRestrictions {
  const scopes = args.options.get('scope')
  const tenants = args.options.get('tenant')
  const parsed: Record<string, string[]> = {}
  for (const entry of tenants ?? []) {
    const [tenant = '', roles = ''] = entry.split('=')
    if (!/^[a-z0-9-]{1,64}$/.test(tenant))
      throw new UsageError('--tenant is tenant=role,role (for example acme=viewer)')
    parsed[tenant] = roles.split(',').filter(Boolean)
  }
  return {
    ...(scopes === undefined ? {} : { scopes }),
    ...(tenants === undefined ? {} : { tenants: parsed }),
  }
}

function report(cli: CliEnvironment, issued: IssuedApiKey, what: string): void {
  cli.stderr.write(
    `${what} ${issued.keyId} for ${issued.ownerId}; the key is printed once on stdout, store it now\n`,
  )
  cli.print(issued.value)
}

/**
 * `api-key issue --owner ID [--owner-kind service|user] [--label TEXT] [--scope S]... [--tenant T=R,R]...
 * [--days N]`, `api-key rotate KEY_ID [--overlap SECONDS]`, `api-key revoke KEY_ID`. Keys go through
 * `ApiKeyService` over the Postgres store with the app's pepper: the app accepts them at once.
 */
export async function apiKeyCommand(args: Arguments, cli: CliEnvironment): Promise<number> {
  const [action, keyId, ...extra] = args.positional
  if (extra.length > 0) throw new UsageError('too many arguments')
  const { secrets } = await cliSecrets(cli)
  const keys = await buildKeyMaterial(secrets)
  return withDatabase(cli, async (postgres) => {
    const service = new ApiKeyService({
      store: new PostgresApiKeyStore({ client: postgres }),
      peppers: keys.peppers,
      prefix: 'demo',
    })
    switch (action) {
      case 'issue': {
        onlyOptions(args, ['owner', 'owner-kind', 'label', 'scope', 'tenant', 'days'])
        if (keyId !== undefined) throw new UsageError('issue takes no key id')
        const ownerId = option(args, 'owner')
        if (ownerId === undefined)
          throw new UsageError('issue needs --owner (a user account id such as demo-alice, or a service id)')
        const ownerKind = option(args, 'owner-kind', 'service')
        if (ownerKind !== 'service' && ownerKind !== 'user')
          throw new UsageError('--owner-kind is service or user')
        const days = integerOption(args, 'days', 90, 0, 3650)
        const label = option(args, 'label')
        const issued = await service.issue({
          ownerId,
          ownerKind,
          restrictions: restrictionsOf(args),
          ...(label === undefined ? {} : { label }),
          ...(days === 0 ? {} : { expiresAt: new Date(Date.now() + days * 86_400_000) }),
        })
        report(cli, issued, 'issued')
        return 0
      }
      case 'rotate': {
        onlyOptions(args, ['overlap'])
        if (keyId === undefined) throw new UsageError('rotate needs the key id')
        const overlapSeconds = integerOption(args, 'overlap', 3600, 0, 7 * 86_400)
        const replacement = await service.rotate(keyId, { overlapSeconds })
        report(cli, replacement, `rotated ${keyId} (still valid for ${overlapSeconds} s) into`)
        return 0
      }
      case 'revoke': {
        onlyOptions(args, [])
        if (keyId === undefined) throw new UsageError('revoke needs the key id')
        await service.revoke(keyId)
        cli.print(`revoked ${keyId}`)
        return 0
      }
      default:
        throw new UsageError('api-key takes issue, rotate or revoke')
    }
  })
}
