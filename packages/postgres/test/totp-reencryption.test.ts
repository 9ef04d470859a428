import { randomBytes } from 'node:crypto'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import {
  type ListStaleTotpSecretsRequest,
  sealedSecretKeyVersion,
  type TotpSecretResealing,
} from '@portcullis/core/totp'
import { reencryptTotpSecrets, TotpService, totpCodeAt } from '@portcullis/totp'
import { Secret } from 'otpauth'
import { afterAll, describe, expect, it } from 'vitest'
import { PostgresRateLimitStore, PostgresTotpStore } from '../src/index.js'
import { migratedDatabase } from './support/database.js'

const db = await migratedDatabase()
afterAll(() => db.close())

const STEP = 30_000
const T0 = 1_900_000_000_000 - (1_900_000_000_000 % STEP) + 10_000
const oldKey = new OAuthTransactionProtectorKey('2031-01', randomBytes(32))
const newKey = new OAuthTransactionProtectorKey('2031-02', randomBytes(32))
const before = new AESGCMOAuthTransactionProtector({ activeKey: oldKey })
const rotated = new AESGCMOAuthTransactionProtector({ activeKey: newKey, retainedKeys: [oldKey] })
const after = new AESGCMOAuthTransactionProtector({ activeKey: newKey })
const store = new PostgresTotpStore({ client: db.client })

function service(protector: AESGCMOAuthTransactionProtector, now = T0): TotpService {
  return new TotpService({
    store,
    protector,
    rateLimits: new PostgresRateLimitStore({ client: db.client }),
    recoveryCodePeppers: { active: { version: 'p1', secret: randomBytes(32) } },
    issuer: 'Portcullis',
    attempts: { limit: 50, windowSeconds: 300 },
    clock: () => now,
  })
}

async function enroll(totp: TotpService, accountId: string, pending = false): Promise<Uint8Array> {
  const start = await totp.beginEnrollment({ accountId, label: accountId })
  const secret = Secret.fromBase32(start.revealSecret()).bytes
  if (!pending) await totp.confirmEnrollment({ accountId, code: totpCodeAt(secret, T0) })
  return secret
}

async function stored(accountId: string): Promise<string | null> {
  const { rows } = await db.client.pool.query<{ sealed_secret: string }>(
    'select sealed_secret from portcullis_totp_enrollments where account_id = $1',
    [accountId],
  )
  return rows[0]?.sealed_secret ?? null
}

describe('reencryptTotpSecrets over PostgresTotpStore', () => {
  it('re-seals every secret in batches, leaves a tampered one in place, and codes verify without the old key', async () => {
    const secrets = new Map<string, Uint8Array>()
    for (let index = 0; index < 5; index += 1) {
      secrets.set(`rotate-${index}`, await enroll(service(before), `rotate-${index}`, index === 4))
    }
    await enroll(service(before), 'rotate-tampered')
    const original = (await stored('rotate-tampered')) ?? ''
    const tampered = `${original.slice(0, -2)}${original.endsWith('AA') ? 'AB' : 'AA'}`
    await db.client.pool.query(
      'update portcullis_totp_enrollments set sealed_secret = $1 where account_id = $2',
      [tampered, 'rotate-tampered'],
    )
    await db.client.pool.query(
      'insert into portcullis_totp_enrollments (account_id, sealed_secret, status, created_at) values ($1, $2, $3, now())',
      ['rotate-damaged', 'not-an-envelope', 'pending'],
    )

    const report = await reencryptTotpSecrets({ store, protector: rotated, batchSize: 2 })
    expect(report).toMatchObject({ rewritten: 5, changed: 0, unreadable: 2 })
    expect(report.unreadableSecrets).toEqual([
      { accountId: 'rotate-damaged', keyVersion: null },
      { accountId: 'rotate-tampered', keyVersion: '2031-01' },
    ])
    expect(await stored('rotate-tampered')).toBe(tampered)
    expect(await stored('rotate-damaged')).toBe('not-an-envelope')
    for (const accountId of secrets.keys()) {
      expect(sealedSecretKeyVersion((await stored(accountId)) ?? '')).toBe('2031-02')
    }

    const later = T0 + 2 * STEP
    const totp = service(after, later)
    for (const [accountId, secret] of secrets) {
      if (accountId === 'rotate-4') {
        await expect(
          totp.confirmEnrollment({ accountId, code: totpCodeAt(secret, later) }),
        ).resolves.toBeDefined()
      } else {
        await expect(totp.verify({ accountId, code: totpCodeAt(secret, later) })).resolves.toBeUndefined()
      }
    }
    await db.client.pool.query('delete from portcullis_totp_enrollments where account_id = any($1)', [
      ['rotate-tampered', 'rotate-damaged'],
    ])
    expect(await reencryptTotpSecrets({ store, protector: after })).toMatchObject({
      rewritten: 0,
      unreadable: 0,
    })
  })

  it('a disable or re-enrollment on another instance between listing and rewrite wins', async () => {
    await enroll(service(before), 'race-disabled')
    await enroll(service(before), 'race-reenrolled')
    const other = new PostgresTotpStore({ client: db.connect() })
    const racing: TotpSecretResealing = {
      listStaleTotpSecrets: async (request: ListStaleTotpSecretsRequest) => {
        const listed = await store.listStaleTotpSecrets(request)
        if (request.afterAccountId === undefined) {
          await other.removeTotp('race-disabled')
          await other.removeTotp('race-reenrolled')
          await enroll(service(rotated), 'race-reenrolled', true)
        }
        return listed
      },
      resealTotpSecret: (request) => store.resealTotpSecret(request),
    }
    const fresh = async () => stored('race-reenrolled')
    const report = await reencryptTotpSecrets({ store: racing, protector: rotated })
    expect(report).toMatchObject({ changed: 2, unreadable: 0 })
    expect(await stored('race-disabled')).toBeNull()
    expect(sealedSecretKeyVersion((await fresh()) ?? '')).toBe('2031-02')
    expect((await store.getTotpEnrollment('race-reenrolled'))?.status).toBe('pending')
  })
})
