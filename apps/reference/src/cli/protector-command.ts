import type { accounts } from '@portcullis/core/oauth'
import {
  type EnvelopeInventoryReport,
  envelopesByKeyVersion,
  envelopesUnder,
  unreadableEnvelopes,
} from '@portcullis/core/protection'
import { type PostgresClient, PostgresEnvelopeInventory } from '@portcullis/postgres'
import { reencryptTotp } from '../protection/reencrypt-totp.js'
import { reencryptVault } from '../protection/reencrypt-vault.js'
import { versionedSecret } from '../secrets/generate.js'
import { protectorOf } from '../secrets/key-material.js'
import { SECRETS_VARIABLE } from '../secrets/secret-source.js'
import type { ReferenceSecrets, SecretRing } from '../secrets/secrets.js'
import { writeSecretsFile } from '../secrets/secrets-file.js'
import { type Arguments, integerOption, onlyOptions, UsageError } from './arguments.js'
import { type CliEnvironment, cliSecrets, secretsPath, withDatabase } from './environment.js'
import { progressCounter } from './progress.js'

/** The library's envelope inventory (every sealed column, expired OAuth transactions left out). */
function inventory(postgres: PostgresClient): Promise<EnvelopeInventoryReport> {
  return new PostgresEnvelopeInventory({ client: postgres }).count()
}

function printCounts(
  cli: CliEnvironment,
  title: string,
  report: EnvelopeInventoryReport,
  ring: SecretRing,
): void {
  const counts = envelopesByKeyVersion(report)
  cli.print(title)
  const versions = new Set([
    ring.active.version,
    ...ring.retained.map((secret) => secret.version),
    ...counts.keys(),
  ])
  for (const version of versions) {
    const role =
      version === ring.active.version
        ? 'active'
        : ring.retained.some((s) => s.version === version)
          ? 'retained'
          : 'unknown'
    cli.print(`  ${version.padEnd(20)} ${role.padEnd(8)} ${counts.get(version) ?? 0} envelope(s)`)
  }
  const unreadable = unreadableEnvelopes(report)
  if (unreadable > 0) cli.print(`  ${'(unreadable)'.padEnd(20)} ${''.padEnd(8)} ${unreadable} value(s)`)
}

/** One unreadable envelope by registration and record: never its content. */
function describeUnreadable(entry: accounts.UnreadableVaultEnvelope): string {
  const record =
    entry.kind === 'vault-tokens'
      ? `token vault ${entry.providerAccountId} (version ${entry.version})`
      : `revocation retry ${entry.retryId} (${entry.providerAccountId})`
  return `${entry.provider}/${entry.clientId} ${record}, key ${entry.keyVersion ?? '(damaged)'}`
}

/** Re-seals the token vault and retries, then the TOTP secrets; true when every envelope opened. */
async function reencrypt(
  cli: CliEnvironment,
  postgres: PostgresClient,
  ring: SecretRing,
  batchSize: number,
): Promise<boolean> {
  const protector = protectorOf(ring)
  const progress = progressCounter('re-encrypting', cli.stderr)
  const report = await reencryptVault(postgres, cli.config, protector, {
    batchSize,
    onProgress: ({ scanned }) => progress.update(scanned),
  })
  progress.done(report.scanned)
  cli.print(
    `re-encrypted ${report.resealed}, changed concurrently ${report.raced}, unreadable ${report.unreadable.length} (of ${report.scanned} under other keys)`,
  )
  for (const entry of report.unreadable) cli.print(`  unreadable: ${describeUnreadable(entry)}`)
  const totpProgress = progressCounter('re-sealing TOTP secrets', cli.stderr)
  const totp = await reencryptTotp(postgres, protector, {
    batchSize,
    onProgress: (counts) => totpProgress.update(counts.rewritten + counts.changed + counts.unreadable),
  })
  totpProgress.done(totp.rewritten + totp.changed + totp.unreadable)
  cli.print(
    `TOTP secrets: re-sealed ${totp.rewritten}, changed concurrently ${totp.changed}, unreadable ${totp.unreadable}`,
  )
  for (const entry of totp.unreadableSecrets) {
    cli.print(
      `  unreadable: TOTP secret of account ${entry.accountId}, key ${entry.keyVersion ?? '(damaged)'}`,
    )
  }
  const unreadable = report.unreadable.length + totp.unreadable
  if (unreadable > 0) {
    cli.print(
      '  keep the key that sealed them retained (or re-link those accounts, or have them enroll TOTP again) before dropping it',
    )
  }
  if (report.raced + totp.changed > 0) {
    cli.print('  envelopes changed concurrently were written by the app; run "protector status" to check')
  }
  printCounts(cli, 'envelopes by key after:', await inventory(postgres), ring)
  return unreadable === 0
}

async function fileSecrets(cli: CliEnvironment, what: string): Promise<ReferenceSecrets> {
  const loaded = await cliSecrets(cli)
  if (loaded.origin.kind === 'environment') {
    throw new Error(
      `the secrets come from ${SECRETS_VARIABLE}: ${what} in your secret store (docs/protection.md, rotation runbook), deploy, then run "protector reencrypt"`,
    )
  }
  return loaded.secrets
}

/**
 * `protector status | rotate | reencrypt | drop-retained` (docs/protection.md, rotation runbook):
 * - `rotate`: a new active key, the old one retained, written to the secrets file (0600), then every
 *   token-vault, revocation-retry and TOTP-secret envelope re-sealed under the new key, with progress;
 * - `reencrypt`: only the re-sealing (after a rotation done in a secret store);
 * - `drop-retained`: removes retained keys no envelope uses any more; exits 4 while it keeps one;
 * - `status`: envelopes per key version.
 * Stop the app first when it uses embedded storage; restart every instance after `rotate`.
 */
export async function protectorCommand(args: Arguments, cli: CliEnvironment): Promise<number> {
  const [action, ...extra] = args.positional
  if (extra.length > 0) throw new UsageError('too many arguments')
  onlyOptions(args, ['batch-size'])
  const batchSize = integerOption(args, 'batch-size', 200, 1, 1000)
  switch (action) {
    case 'status': {
      const { secrets } = await cliSecrets(cli)
      await withDatabase(cli, async (postgres) =>
        printCounts(cli, 'envelopes by key:', await inventory(postgres), secrets.protector),
      )
      return 0
    }
    case 'rotate': {
      const secrets = await fileSecrets(cli, 'rotate the keys')
      return withDatabase(cli, async (postgres) => {
        printCounts(cli, 'envelopes by key before:', await inventory(postgres), secrets.protector)
        const old = secrets.protector
        const ring: SecretRing = {
          active: versionedSecret(new Date()),
          retained: [old.active, ...old.retained],
        }
        await writeSecretsFile(secretsPath(cli.config), { ...secrets, protector: ring })
        cli.print(
          `activated ${ring.active.version}; retained ${ring.retained.map((s) => s.version).join(', ')} (written to ${secretsPath(cli.config)})`,
        )
        const readable = await reencrypt(cli, postgres, ring, batchSize)
        cli.print(
          'restart every running instance now so it seals with the new key; then "protector drop-retained"',
        )
        return readable ? 0 : 1
      })
    }
    case 'reencrypt': {
      const { secrets } = await cliSecrets(cli)
      return withDatabase(cli, async (postgres) =>
        (await reencrypt(cli, postgres, secrets.protector, batchSize)) ? 0 : 1,
      )
    }
    case 'drop-retained': {
      const secrets = await fileSecrets(cli, 'remove the retained keys')
      return withDatabase(cli, async (postgres) => {
        const report = await inventory(postgres)
        const keep = secrets.protector.retained.filter(
          (secret) => envelopesUnder(report, secret.version).length > 0,
        )
        const dropped = secrets.protector.retained.filter((secret) => !keep.includes(secret))
        await writeSecretsFile(secretsPath(cli.config), {
          ...secrets,
          protector: { active: secrets.protector.active, retained: keep },
        })
        cli.print(
          dropped.length === 0
            ? 'no retained key can be dropped yet'
            : `dropped ${dropped.map((s) => s.version).join(', ')}`,
        )
        for (const secret of keep) {
          const where = envelopesUnder(report, secret.version)
          const total = where.reduce((sum, location) => sum + location.count, 0)
          cli.print(
            `kept ${secret.version}: ${total} envelope(s) still use it (run "protector reencrypt"; OAuth transactions expire within 10 minutes)`,
          )
          for (const location of where) cli.print(`  ${location.location}: ${location.count}`)
        }
        // As `portcullis-postgres protector drop-retained`: 4 while a live envelope still needs a key.
        return keep.length === 0 ? 0 : 4
      })
    }
    default:
      throw new UsageError('protector takes status, rotate, reencrypt or drop-retained')
  }
}
