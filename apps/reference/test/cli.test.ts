import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ApiKeyService } from '@portcullis/core/api-keys'
import { accounts } from '@portcullis/core/oauth'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import {
  createPostgresClient,
  migrate,
  PostgresApiKeyStore,
  type PostgresClient,
  PostgresOAuthAccountStore,
  PostgresRateLimitStore,
  PostgresTotpStore,
} from '@portcullis/postgres'
import { TotpService, totpCodeAt } from '@portcullis/totp'
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { runCli } from '../src/cli/run.js'
import { buildKeyMaterial, protectorOf } from '../src/secrets/key-material.js'
import { readSecretsFile } from '../src/secrets/secrets-file.js'
import { DEMO_API_AUDIENCE, DEMO_WORKLOAD_ISSUER } from '../src/workload/workload-signer.js'

/** The CLI, run in-process exactly as `pnpm --filter @portcullis/reference cli ...` runs it. */
let directory: string
let database: TestDatabase
let client: PostgresClient
let env: NodeJS.ProcessEnv
const secretsFile = () => join(directory, 'secrets.json')

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'portcullis-cli-'))
  database = await createTestDatabase()
  client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 2 })
  env = {
    DATABASE_URL: database.connectionString,
    PORTCULLIS_DATA_DIR: join(directory, 'postgres'),
    PORTCULLIS_SECRETS_FILE: secretsFile(),
  }
})
afterAll(async () => {
  await client?.close()
  await database?.close()
  await rm(directory, { recursive: true, force: true })
})
afterEach(() => {
  vi.restoreAllMocks()
})

/** Runs the CLI; returns its exit code, stdout and stderr. */
async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk)
    return true
  })
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk)
    return true
  })
  try {
    return { code: await runCli(argv, env), stdout, stderr }
  } finally {
    vi.restoreAllMocks()
  }
}

describe('migrations', () => {
  it('reports pending migrations with exit code 3, then the current schema with 0', async () => {
    const pending = await cli('migrations')
    expect(pending.code).toBe(3)
    expect(pending.stdout).toMatch(/^pending +1 +oauth-accounts$/m)
    await migrate(client)
    const current = await cli('migrations')
    expect(current.code).toBe(0)
    expect(current.stdout).toMatch(/^applied +1 +oauth-accounts /m)
    expect(current.stdout).toMatch(/schema current at version \d+/)
  })
})

describe('workload-jwt', () => {
  it('mints an at+jwt of the demo issuer that verifies with the published key', async () => {
    const { code, stdout } = await cli(
      'workload-jwt',
      '--subject',
      'svc-reporting',
      '--scope',
      'reports:read',
      '--ttl',
      '120',
    )
    expect(code).toBe(0)
    const token = stdout.trim()
    const keys = await buildKeyMaterial(await readSecretsFile(secretsFile()))
    const { payload } = await jwtVerify(
      token,
      await importJWK({ ...keys.workloadSigner.publicJwk }, 'ES256'),
      {
        issuer: DEMO_WORKLOAD_ISSUER,
        audience: DEMO_API_AUDIENCE,
        typ: 'at+jwt',
      },
    )
    expect(payload).toMatchObject({ sub: 'svc-reporting', client_id: 'svc-reporting', scope: 'reports:read' })
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(120)
    expect(decodeProtectedHeader(token).kid).toBe(keys.workloadSigner.publicJwk.kid)
  })
})

describe('api-key', () => {
  it('issues, rotates with overlap and revokes keys the app accepts', async () => {
    const service = new ApiKeyService({
      store: new PostgresApiKeyStore({ client }),
      peppers: (await buildKeyMaterial(await readSecretsFile(secretsFile()))).peppers,
      prefix: 'demo',
    })
    const issued = await cli(
      'api-key',
      'issue',
      '--owner',
      'svc-reporting',
      '--tenant',
      'acme=billing',
      '--label',
      'ci',
    )
    expect(issued.code).toBe(0)
    const first = issued.stdout.trim()
    expect(issued.stderr).toContain('printed once')
    expect(issued.stderr).not.toContain(first)
    expect(await service.verify(first)).toMatchObject({ kind: 'valid' })

    const firstId = first.slice('demo_'.length, 'demo_'.length + 16)
    const rotated = await cli('api-key', 'rotate', firstId, '--overlap', '60')
    expect(rotated.code).toBe(0)
    const second = rotated.stdout.trim()
    expect(await service.verify(first)).toMatchObject({ kind: 'valid' })
    expect(await service.verify(second)).toMatchObject({ kind: 'valid' })

    const revoked = await cli('api-key', 'revoke', second.slice('demo_'.length, 'demo_'.length + 16))
    expect(revoked.code).toBe(0)
    expect(await service.verify(second)).toMatchObject({ kind: 'invalid' })
  })

  it('usage mistakes are exit code 2 with one line', async () => {
    expect((await cli('api-key', 'issue')).code).toBe(2)
    expect((await cli('api-key', 'rotate', 'x', '--overlap', 'soon')).code).toBe(2)
    const typo = await cli('api-key', 'issue', '--owner', 'svc', '--lable', 'x')
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain('unknown option --lable')
    expect((await cli('nonsense')).code).toBe(2)
    // The re-encryption helpers take at most 1000 rows a batch: the CLI says so before touching anything.
    const batch = await cli('protector', 'reencrypt', '--batch-size', '1001')
    expect(batch.code).toBe(2)
    expect(batch.stderr).toContain('--batch-size must be a whole number from 1 to 1000')
  })
})

describe('secrets', () => {
  it('generate prints a document the app accepts from PORTCULLIS_SECRETS; check shows no secret', async () => {
    const generated = await cli('secrets', 'generate')
    expect(generated.code).toBe(0)
    const document = JSON.parse(generated.stdout) as { protector: { active: { value: string } } }
    const saved = env
    env = { ...env, PORTCULLIS_SECRETS: generated.stdout.trim() }
    try {
      const checked = await cli('secrets', 'check')
      expect(checked.code).toBe(0)
      expect(checked.stdout).toContain('secrets from PORTCULLIS_SECRETS: every key imports')
      expect(checked.stdout).not.toContain(document.protector.active.value)
    } finally {
      env = saved
    }
  })
})

describe('protector rotation', () => {
  const identity = (subject: string) => ({ provider: 'demo', issuer: 'http://127.0.0.1:3001', subject })
  const tokens = (subject: string) =>
    new accounts.ProviderTokenSet({
      accessToken: `access-${subject}`,
      refreshToken: `refresh-${subject}`,
      scopes: ['openid'],
      expiresAt: new Date(Date.now() + 3_600_000),
    })
  const storeWith = async () =>
    new PostgresOAuthAccountStore({
      client,
      provider: 'demo',
      clientId: 'portcullis-reference',
      protector: protectorOf((await readSecretsFile(secretsFile())).protector),
    })
  const links = new Map<string, string>()
  const T0 = 1_900_000_010_000
  const totpWith = async (now: number, ring?: Parameters<typeof protectorOf>[0]) =>
    new TotpService({
      store: new PostgresTotpStore({ client }),
      protector: protectorOf(ring ?? (await readSecretsFile(secretsFile())).protector),
      rateLimits: new PostgresRateLimitStore({ client }),
      recoveryCodePeppers: { active: { version: 'p1', secret: randomBytes(32) } },
      issuer: 'Portcullis CLI test',
      clock: () => now,
    })
  const totpVersion = async (accountId: string) =>
    (
      await client.pool.query<{ sealed_secret: string }>(
        'select sealed_secret from portcullis_totp_enrollments where account_id = $1',
        [accountId],
      )
    ).rows[0]?.sealed_secret.split('.')[1]

  it('re-seals every token-vault, retry and TOTP envelope under a new key, which then stands alone', async () => {
    const before = await readSecretsFile(secretsFile())
    const store = await storeWith()
    for (const subject of ['alice', 'bob', 'carol']) {
      const outcome = await store.login({
        identity: identity(subject),
        grant: { scopes: ['openid'] },
        tokens: tokens(subject),
        provisionUnknown: true,
        now: new Date(),
      })
      links.set(subject, outcome.link.providerAccountId)
    }
    // carol's revocation failed upstream: her tokens wait, sealed, in a retry record.
    const carol = links.get('carol') ?? ''
    const staged = await store.stageRevocationRetry({
      providerAccountId: carol,
      expectedVersion: (await store.getTokens(carol))?.reference.version ?? 0,
      tokens: tokens('carol'),
      failedTokenTypes: ['refresh_token'],
      occurredAt: new Date(),
    })
    expect(staged).not.toBeNull()
    // dave uses TOTP: his secret is sealed with the same protector.
    const enrollment = await (await totpWith(T0)).beginEnrollment({ accountId: 'dave', label: 'dave' })
    const totpSecret = enrollment.revealSecret()
    await (await totpWith(T0)).confirmEnrollment({ accountId: 'dave', code: totpCodeAt(totpSecret, T0) })
    expect(await totpVersion('dave')).toBe(before.protector.active.version)

    const rotated = await cli('protector', 'rotate')
    expect(rotated.code).toBe(0)
    expect(rotated.stdout).toContain(
      're-encrypted 3, changed concurrently 0, unreadable 0 (of 3 under other keys)',
    )
    expect(rotated.stdout).toContain('TOTP secrets: re-sealed 1, changed concurrently 0, unreadable 0')
    expect(rotated.stderr).toContain('re-encrypting: 3 envelope(s), done')
    expect(rotated.stderr).toContain('re-sealing TOTP secrets: 1 envelope(s), done')
    const after = await readSecretsFile(secretsFile())
    expect(after.protector.active.version).not.toBe(before.protector.active.version)
    expect(after.protector.retained).toEqual([before.protector.active])
    expect((await stat(secretsFile())).mode & 0o777).toBe(0o600)
    const { rows } = await client.pool.query<{ envelope: string }>(
      `select envelope from portcullis_oauth_token_vault where envelope is not null
       union all select envelope from portcullis_oauth_revocation_retries`,
    )
    expect(rows).toHaveLength(3)
    for (const row of rows)
      expect(row.envelope.startsWith(`pe1.${after.protector.active.version}.`)).toBe(true)
    expect(await totpVersion('dave')).toBe(after.protector.active.version)

    // erin enrolls on an instance not restarted yet, still sealing with the old key: that key is kept,
    // the place that needs it named, and the command exits 4 until a re-encryption re-seals her secret.
    await (await totpWith(T0, before.protector)).beginEnrollment({ accountId: 'erin', label: 'erin' })
    const early = await cli('protector', 'drop-retained')
    expect(early.code).toBe(4)
    expect(early.stdout).toContain(`kept ${before.protector.active.version}: 1 envelope(s) still use it`)
    expect(early.stdout).toContain('portcullis_totp_enrollments.sealed_secret: 1')
    expect((await readSecretsFile(secretsFile())).protector.retained).toEqual([before.protector.active])
    expect((await cli('protector', 'reencrypt')).code).toBe(0)

    const dropped = await cli('protector', 'drop-retained')
    expect(dropped.code).toBe(0)
    expect(dropped.stdout).toContain(`dropped ${before.protector.active.version}`)
    const final = await readSecretsFile(secretsFile())
    expect(final.protector).toEqual({ active: after.protector.active, retained: [] })

    // Only the new key is left, and everything still opens.
    const fresh = await storeWith()
    expect((await fresh.getTokens(links.get('alice') ?? ''))?.tokens.accessToken).toBe('access-alice')
    expect((await fresh.getTokens(links.get('bob') ?? ''))?.tokens.refreshToken).toBe('refresh-bob')
    const [retry] = await fresh.claimRevocationRetries({ now: new Date(), leaseSeconds: 60, limit: 10 })
    expect(retry?.tokens.refreshToken).toBe('refresh-carol')
    const later = T0 + 60_000
    await expect(
      (await totpWith(later)).verify({ accountId: 'dave', code: totpCodeAt(totpSecret, later) }),
    ).resolves.toBeUndefined()
  })

  it('a second run finds nothing to do; status counts envelopes per key', async () => {
    const again = await cli('protector', 'reencrypt')
    expect(again.code).toBe(0)
    expect(again.stdout).toContain(
      're-encrypted 0, changed concurrently 0, unreadable 0 (of 0 under other keys)',
    )
    expect(again.stdout).toContain('TOTP secrets: re-sealed 0, changed concurrently 0, unreadable 0')
    // three vault and retry envelopes, dave's and erin's TOTP secrets
    const status = await cli('protector', 'status')
    const { protector } = await readSecretsFile(secretsFile())
    expect(status.stdout).toMatch(new RegExp(`${protector.active.version} +active +5 envelope`))
  })

  it('reports an envelope no configured key opens, by record and key, exits 1 and leaves it in place', async () => {
    const foreign = new AESGCMOAuthTransactionProtector({
      activeKey: new OAuthTransactionProtectorKey('foreign-1', randomBytes(32)),
    })
    const outsider = new PostgresOAuthAccountStore({
      client,
      provider: 'demo',
      clientId: 'portcullis-reference',
      protector: foreign,
    })
    const secret = tokens('dave')
    const { link } = await outsider.login({
      identity: identity('dave'),
      grant: { scopes: ['openid'] },
      tokens: secret,
      provisionUnknown: true,
      now: new Date(),
    })
    const envelopeOf = async () =>
      (
        await client.pool.query<{ envelope: string }>(
          'select envelope from portcullis_oauth_token_vault where provider_account_id = $1',
          [link.providerAccountId],
        )
      ).rows[0]?.envelope
    const before = await envelopeOf()
    const foreignTotp = new PostgresTotpStore({ client })
    const sealedElsewhere = `pe1.foreign-1.${randomBytes(48).toString('base64url')}`
    await foreignTotp.savePendingTotp({ accountId: 'erin', sealedSecret: sealedElsewhere, now: new Date() })
    const run = await cli('protector', 'reencrypt')
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('unreadable 1 (of 1 under other keys)')
    expect(run.stdout).toContain(
      `unreadable: demo/portcullis-reference token vault ${link.providerAccountId} (version 1), key foreign-1`,
    )
    expect(`${run.stdout}${run.stderr}`).not.toContain(secret.accessToken)
    expect(await envelopeOf()).toBe(before)
    expect(run.stdout).toContain('TOTP secrets: re-sealed 0, changed concurrently 0, unreadable 1')
    expect(run.stdout).toContain('unreadable: TOTP secret of account erin, key foreign-1')
    expect((await foreignTotp.getTotpEnrollment('erin'))?.sealedSecret).toBe(sealedElsewhere)
    await foreignTotp.removeTotp('erin')
    await outsider.discardTokens({ providerAccountId: link.providerAccountId })
  })

  it('refuses to rotate keys that come from a secret store (PORTCULLIS_SECRETS)', async () => {
    const secrets = JSON.stringify(await readSecretsFile(secretsFile()))
    const saved = env
    env = { ...env, PORTCULLIS_SECRETS: secrets }
    try {
      const refused = await cli('protector', 'rotate')
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain('the secrets come from PORTCULLIS_SECRETS')
      expect(refused.stderr).not.toContain(secrets.slice(0, 40))
    } finally {
      env = saved
    }
  })
})
