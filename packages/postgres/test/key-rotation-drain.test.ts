import { execFile } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { accounts, transactions } from '@portcullis/core/oauth'
import {
  AESGCMOAuthTransactionProtector,
  type EnvelopeInventoryReport,
  envelopesByKeyVersion,
  envelopesUnder,
  OAuthTransactionProtectorKey,
} from '@portcullis/core/protection'
import { reencryptTotpSecrets, TotpService } from '@portcullis/totp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  PostgresEnvelopeInventory,
  PostgresOAuthAccountStore,
  PostgresOAuthTransactionStore,
  PostgresRateLimitStore,
  PostgresTotpStore,
} from '../src/index.js'
import { migratedDatabase } from './support/database.js'
import { LoopbackIdentityProvider } from './support/identity-provider.js'

// The whole rotation runbook on a real database: everything sealed under v1, v2 activated with v1
// retained, the vault and TOTP secrets re-sealed, the revocation retries drained, the OAuth transactions
// left to expire, then v1 dropped. The inventory follows each step, and the real `portcullis-postgres`
// command refuses to drop v1 one step early.

const db = await migratedDatabase()
const idp = new LoopbackIdentityProvider()
beforeAll(() => idp.start())
afterAll(async () => {
  await idp.stop()
  await db.close()
})

const v1 = new OAuthTransactionProtectorKey('2031-01', randomBytes(32))
const v2 = new OAuthTransactionProtectorKey('2031-02', randomBytes(32))
const onlyV1 = new AESGCMOAuthTransactionProtector({ activeKey: v1 })
const rotated = new AESGCMOAuthTransactionProtector({ activeKey: v2, retainedKeys: [v1] })
const onlyV2 = new AESGCMOAuthTransactionProtector({ activeKey: v2 })

// The transactions start so that they expire 30 s from now in real time: the command runs in another
// process with the system clock (the in-process inventory reads the controlled clock). The steps before
// the early check take about 10 s; the test then waits for the expiry.
const LIFETIME_MS = 600_000
const REAL_EXPIRY_MS = 30_000
const startedAt = new Date(Math.floor((Date.now() - LIFETIME_MS + REAL_EXPIRY_MS) / 1000) * 1000)
const expiresAt = new Date(startedAt.getTime() + LIFETIME_MS)
let now = new Date(startedAt.getTime() + 1000)
const inventory = new PostgresEnvelopeInventory({ client: db.client, clock: () => now })

const oauth = (protector: AESGCMOAuthTransactionProtector) =>
  new PostgresOAuthAccountStore({
    client: db.client,
    provider: 'example-idp',
    clientId: 'client-1',
    protector,
  })
const totpStore = new PostgresTotpStore({ client: db.client })
const totp = (protector: AESGCMOAuthTransactionProtector) =>
  new TotpService({
    store: totpStore,
    protector,
    rateLimits: new PostgresRateLimitStore({ client: db.client }),
    recoveryCodePeppers: { active: { version: 'p1', secret: randomBytes(32) } },
    issuer: 'Portcullis',
  })

const packageRoot = fileURLToPath(new URL('..', import.meta.url))

/** `portcullis-postgres protector ...` as a child process, the way an operator runs it. */
async function command(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      join(packageRoot, 'node_modules', '.bin', 'tsx'),
      ['--conditions=@portcullis/source', 'src/cli/main.ts', 'protector', ...args],
      {
        cwd: packageRoot,
        env: {
          ...process.env,
          DATABASE_URL: db.database.connectionString,
          PORTCULLIS_PROTECTOR_KEY_VERSION: '2031-02',
          PORTCULLIS_PROTECTOR_PREVIOUS_KEY_VERSION: '2031-01',
        },
      },
    )
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' }
  }
}

function totals(report: EnvelopeInventoryReport, version: string): Record<string, number> {
  return Object.fromEntries(envelopesUnder(report, version).map((where) => [where.location, where.count]))
}

function tokens(label: string): accounts.ProviderTokenSet {
  const refreshToken = `refresh-${label}-${randomUUID()}`
  idp.issue(refreshToken)
  return new accounts.ProviderTokenSet({
    accessToken: `access-${label}-${randomUUID()}`,
    refreshToken,
    scopes: ['openid'],
    expiresAt: new Date(Date.now() + 3_600_000),
  })
}

describe('a key rotation drained to the end', () => {
  it('counts every envelope under v1 until each kind is re-sealed, drained or expired, then drops v1', async () => {
    // 1. Everything sealed under v1: two vault entries, a revocation retry, two transactions, TOTP.
    const store = oauth(onlyV1)
    const linked: accounts.LinkedProviderAccount[] = []
    for (const label of ['alice', 'bob', 'carol']) {
      const login = await store.login({
        identity: { provider: 'example-idp', issuer: 'https://idp.example/', subject: label },
        grant: { scopes: ['openid'] },
        tokens: tokens(label),
        provisionUnknown: true,
        now: startedAt,
      })
      linked.push(login.link)
    }
    const carol = linked[2] as accounts.LinkedProviderAccount
    const carolTokens = await store.getTokens(carol.providerAccountId)
    const staged = await store.stageRevocationRetry({
      providerAccountId: carol.providerAccountId,
      expectedVersion: carolTokens?.reference.version ?? 0,
      tokens: carolTokens?.tokens as accounts.ProviderTokenSet,
      failedTokenTypes: ['refresh_token'],
      occurredAt: startedAt,
    })
    expect(staged).not.toBeNull()
    const transactionStore = new PostgresOAuthTransactionStore({ client: db.client, protector: onlyV1 })
    for (const nonce of [true, false]) {
      await transactionStore.create(
        new transactions.OAuthTransaction({
          stateDigest: randomBytes(32),
          bindingDigest: randomBytes(32),
          provider: 'example-idp',
          operation: 'login',
          redirectUri: 'https://app.example/auth/oauth/example-idp/callback',
          returnTo: '/',
          pkceVerifier: randomBytes(32).toString('base64url'),
          nonce: nonce ? randomBytes(32).toString('base64url') : null,
          createdAt: startedAt,
          expiresAt,
        }),
      )
    }
    await totp(onlyV1).beginEnrollment({ accountId: linked[0]?.accountId ?? '', label: 'alice' })
    const sealed = await inventory.count()
    expect(totals(sealed, '2031-01')).toEqual({
      'portcullis_oauth_token_vault.envelope': 2,
      'portcullis_oauth_revocation_retries.envelope': 1,
      'portcullis_oauth_transactions.pkce_verifier_envelope': 2,
      'portcullis_oauth_transactions.nonce_envelope': 1,
      'portcullis_totp_enrollments.sealed_secret': 1,
    })
    expect([...envelopesByKeyVersion(sealed).keys()]).toEqual(['2031-01'])

    // 2. v2 active, v1 retained: new envelopes under v2, old ones still counted under v1.
    await totp(rotated).beginEnrollment({ accountId: linked[1]?.accountId ?? '', label: 'bob' })
    const activated = await inventory.count()
    expect(envelopesByKeyVersion(activated).get('2031-01')).toBe(7)
    expect(totals(activated, '2031-02')).toEqual({ 'portcullis_totp_enrollments.sealed_secret': 1 })

    // 3. Re-seal the vault (and the retry) and the TOTP secrets under v2.
    const vault = await accounts.reencryptOAuthVault({ stores: [oauth(rotated)], protector: rotated })
    expect(vault).toMatchObject({ scanned: 3, resealed: 3, raced: 0, unreadable: [] })
    const resealedTotp = await reencryptTotpSecrets({ store: totpStore, protector: rotated })
    expect(resealedTotp).toMatchObject({ rewritten: 1, changed: 0, unreadable: 0 })
    expect(totals(await inventory.count(), '2031-01')).toEqual({
      'portcullis_oauth_transactions.pkce_verifier_envelope': 2,
      'portcullis_oauth_transactions.nonce_envelope': 1,
    })

    // 4. Drain the revocation retry: revoked upstream, completed, gone.
    const drained = await accounts.drainRevocationRetries({
      store: oauth(rotated),
      tokenEndpoint: idp.client(),
      clock: () => now,
    })
    expect(drained).toMatchObject({ claimed: 1, completed: 1 })
    expect(idp.revoked).toEqual([carolTokens?.tokens.refreshToken])

    // One step early: only the live transactions still need v1, and the command refuses, naming them.
    const [early, status] = await Promise.all([command(['drop-retained']), command(['status'])])
    expect(Date.now(), 'the early check ran after the transactions expired').toBeLessThan(expiresAt.getTime())
    expect(early.code).toBe(4)
    expect(early.stderr).toContain('refusing: 2031-01 still seals 3 live envelope(s):')
    expect(early.stderr).toContain('portcullis_oauth_transactions.pkce_verifier_envelope: 2')
    expect(early.stderr).toContain('portcullis_oauth_transactions.nonce_envelope: 1')
    expect(early.stderr).not.toContain('token_vault')
    expect(status.code).toBe(0)
    expect(status.stdout).toMatch(/2031-02\s+active\s+4\n/)
    expect(status.stdout).toMatch(/2031-01\s+retained\s+3\n/)

    // 5. The transactions expire: a second before, they count; at their expiry, nothing is left.
    now = new Date(expiresAt.getTime() - 1000)
    expect(envelopesByKeyVersion(await inventory.count()).get('2031-01')).toBe(3)
    now = expiresAt
    const done = await inventory.count()
    expect(envelopesUnder(done, '2031-01')).toEqual([])
    expect(envelopesByKeyVersion(done)).toEqual(new Map([['2031-02', 4]]))
    await sleep(Math.max(0, expiresAt.getTime() - Date.now() + 200))
    const ready = await command(['drop-retained'])
    expect(ready).toMatchObject({ code: 0, stderr: '' })
    expect(ready.stdout).toContain('2031-01: no live envelope uses it')

    // 6. v1 dropped: every envelope still counted opens with v2 alone.
    const after = oauth(onlyV2)
    for (const link of linked.slice(0, 2)) {
      expect((await after.getTokens(link.providerAccountId))?.tokens.refreshToken).toMatch(/^refresh-/)
    }
    for (const link of linked.slice(0, 2)) {
      const enrollment = await totpStore.getTotpEnrollment(link.accountId)
      expect(enrollment?.sealedSecret.startsWith('pe1.2031-02.')).toBe(true)
    }
  }, 120_000)
})
