import { randomBytes } from 'node:crypto'
import { MemoryRateLimitStore } from '@portcullis/core/local-accounts'
import {
  AESGCMOAuthTransactionProtector,
  type OAuthTransactionProtector,
  OAuthTransactionProtectorKey,
  parseProtectedEnvelope,
  serializeProtectedEnvelope,
} from '@portcullis/core/protection'
import {
  type ListStaleTotpSecretsRequest,
  MemoryTotpStore,
  sealedSecretKeyVersion,
  type TotpSecretResealing,
} from '@portcullis/core/totp'
import { Secret } from 'otpauth'
import { describe, expect, it } from 'vitest'
import { totpCodeAt } from './one-time-code.js'
import { reencryptTotpSecrets } from './reencryption.js'
import { TotpService } from './service.js'

const STEP = 30_000
const T0 = 1_900_000_000_000 - (1_900_000_000_000 % STEP) + 10_000
const oldKey = new OAuthTransactionProtectorKey('2031-01', randomBytes(32))
const newKey = new OAuthTransactionProtectorKey('2031-02', randomBytes(32))
const before = new AESGCMOAuthTransactionProtector({ activeKey: oldKey })
const rotated = new AESGCMOAuthTransactionProtector({ activeKey: newKey, retainedKeys: [oldKey] })
const after = new AESGCMOAuthTransactionProtector({ activeKey: newKey })

function service(store: MemoryTotpStore, protector: OAuthTransactionProtector, now = T0): TotpService {
  return new TotpService({
    store,
    protector,
    rateLimits: new MemoryRateLimitStore(),
    recoveryCodePeppers: { active: { version: 'p1', secret: randomBytes(32) } },
    issuer: 'Portcullis Test',
    clock: () => now,
  })
}

/** Starts an enrollment and, unless `pending`, confirms it; the secret bytes (what the app holds). */
async function enroll(totp: TotpService, accountId: string, pending = false): Promise<Uint8Array> {
  const start = await totp.beginEnrollment({ accountId, label: accountId })
  const secret = Secret.fromBase32(start.revealSecret()).bytes
  if (!pending) await totp.confirmEnrollment({ accountId, code: totpCodeAt(secret, T0) })
  return secret
}

async function versionOf(store: MemoryTotpStore, accountId: string): Promise<string | null> {
  const enrollment = await store.getTotpEnrollment(accountId)
  return enrollment === null ? null : sealedSecretKeyVersion(enrollment.sealedSecret)
}

describe('reencryptTotpSecrets', () => {
  it('re-seals pending and enabled secrets under the active key, so the retained key can be dropped', async () => {
    const store = new MemoryTotpStore()
    const alice = await enroll(service(store, before), 'alice')
    const bob = await enroll(service(store, before), 'bob')
    const carol = await enroll(service(store, before), 'carol', true)
    const progress: number[] = []
    const report = await reencryptTotpSecrets({
      store,
      protector: rotated,
      batchSize: 1,
      onProgress: (counts) => progress.push(counts.rewritten),
    })
    expect(report).toEqual({ rewritten: 3, changed: 0, unreadable: 0, unreadableSecrets: [] })
    expect(progress).toEqual([1, 2, 3, 3])
    for (const id of ['alice', 'bob', 'carol']) expect(await versionOf(store, id)).toBe('2031-02')
    expect((await store.getTotpEnrollment('alice'))?.lastUsedStep).toBe(Math.floor(T0 / STEP))
    expect((await store.getTotpEnrollment('carol'))?.status).toBe('pending')

    // The old key is gone: codes still verify, and the pending enrollment still confirms.
    const later = T0 + 2 * STEP
    const totp = service(store, after, later)
    await expect(totp.verify({ accountId: 'alice', code: totpCodeAt(alice, later) })).resolves.toBeUndefined()
    await expect(totp.verify({ accountId: 'bob', code: totpCodeAt(bob, later) })).resolves.toBeUndefined()
    const codes = await totp.confirmEnrollment({ accountId: 'carol', code: totpCodeAt(carol, later) })
    expect(codes.reveal()).toHaveLength(10)

    // Nothing is left to do.
    expect(await reencryptTotpSecrets({ store, protector: after })).toEqual({
      rewritten: 0,
      changed: 0,
      unreadable: 0,
      unreadableSecrets: [],
    })
  })

  it('reports a tampered secret by account and key version, leaves it as it was, and re-seals the rest', async () => {
    const store = new MemoryTotpStore()
    await enroll(service(store, before), 'alice')
    await enroll(service(store, before), 'mallory')
    const stored = await store.getTotpEnrollment('mallory')
    if (stored === null) throw new Error('not enrolled')
    const envelope = parseProtectedEnvelope(stored.sealedSecret)
    const bytes = Uint8Array.from(envelope.ciphertext)
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1
    const tampered = serializeProtectedEnvelope({ keyVersion: envelope.keyVersion, ciphertext: bytes })
    await store.resealTotpSecret({
      accountId: 'mallory',
      expected: stored.sealedSecret,
      sealedSecret: tampered,
    })

    const report = await reencryptTotpSecrets({ store, protector: rotated })
    expect(report).toEqual({
      rewritten: 1,
      changed: 0,
      unreadable: 1,
      unreadableSecrets: [{ accountId: 'mallory', keyVersion: '2031-01' }],
    })
    expect((await store.getTotpEnrollment('mallory'))?.sealedSecret).toBe(tampered)
    expect(await versionOf(store, 'alice')).toBe('2031-02')
    // Reported again on the next run, never deleted.
    expect((await reencryptTotpSecrets({ store, protector: rotated })).unreadable).toBe(1)
    expect(JSON.stringify(report)).not.toContain(tampered)
  })

  it('never overwrites a disable or re-enrollment that lands between the listing and the rewrite', async () => {
    const store = new MemoryTotpStore()
    await enroll(service(store, before), 'alice')
    await enroll(service(store, before), 'bob')
    await enroll(service(store, before), 'carol')
    const totp = service(store, rotated)
    let reenrolled: Uint8Array | undefined
    const racing: TotpSecretResealing = {
      listStaleTotpSecrets: async (request: ListStaleTotpSecretsRequest) => {
        const listed = await store.listStaleTotpSecrets(request)
        if (request.afterAccountId === undefined) {
          await totp.disable({ accountId: 'alice' })
          await totp.disable({ accountId: 'bob' })
          reenrolled = await enroll(totp, 'bob')
        }
        return listed
      },
      resealTotpSecret: (request) => store.resealTotpSecret(request),
    }
    const report = await reencryptTotpSecrets({ store: racing, protector: rotated })
    expect(report).toMatchObject({ rewritten: 1, changed: 2, unreadable: 0 })
    expect(await store.getTotpEnrollment('alice')).toBeNull()
    expect(await versionOf(store, 'carol')).toBe('2031-02')
    const later = T0 + 2 * STEP
    if (reenrolled === undefined) throw new Error('not re-enrolled')
    await expect(
      service(store, after, later).verify({ accountId: 'bob', code: totpCodeAt(reenrolled, later) }),
    ).resolves.toBeUndefined()
  })

  it('refuses bad options and a store whose listing does not move past its cursor', async () => {
    const store = new MemoryTotpStore()
    await expect(
      reencryptTotpSecrets({ store: {} as TotpSecretResealing, protector: rotated }),
    ).rejects.toMatchObject({ name: 'ConfigurationError' })
    await expect(reencryptTotpSecrets({ store, protector: rotated, batchSize: 0 })).rejects.toMatchObject({
      name: 'ConfigurationError',
    })
    await enroll(service(store, before), 'alice')
    await store.resealTotpSecret({
      accountId: 'alice',
      expected: (await store.getTotpEnrollment('alice'))?.sealedSecret ?? '',
      sealedSecret: serializeProtectedEnvelope({ keyVersion: '2031-01', ciphertext: randomBytes(40) }),
    })
    const stuck: TotpSecretResealing = {
      listStaleTotpSecrets: ({ limit }) => store.listStaleTotpSecrets({ activeKeyVersion: '2031-02', limit }),
      resealTotpSecret: (request) => store.resealTotpSecret(request),
    }
    await expect(
      reencryptTotpSecrets({ store: stuck, protector: rotated, batchSize: 1 }),
    ).rejects.toMatchObject({
      code: 'totp.invalid_config',
    })
  })
})
