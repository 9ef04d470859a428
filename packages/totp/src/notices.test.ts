import { randomBytes } from 'node:crypto'
import {
  MemoryRateLimitStore,
  type SecurityEvent,
  type SecurityNoticeSource,
} from '@portcullis/core/local-accounts'
import {
  MemoryMailOutbox,
  openOutboxMessage,
  type SecurityChange,
  sealOutboxMessage,
} from '@portcullis/core/mail'
import { AESGCMOAuthTransactionProtector, OAuthTransactionProtectorKey } from '@portcullis/core/protection'
import { MemoryTotpStore } from '@portcullis/core/totp'
import { Secret } from 'otpauth'
import { describe, expect, it } from 'vitest'
import { totpCodeAt } from './one-time-code.js'
import { TotpService } from './service.js'

const STEP = 30_000
const T0 = 1_900_000_000_000 - (1_900_000_000_000 % STEP) + 10_000
const protector = new AESGCMOAuthTransactionProtector({
  activeKey: new OAuthTransactionProtectorKey('2031-03', randomBytes(32)),
})

/** A notice source that seals one notification per change (what `SecurityNotifier.entries` returns). */
const notices: SecurityNoticeSource = {
  entries: async (accountId: string, change: SecurityChange) => [
    await sealOutboxMessage(
      protector,
      {
        kind: 'security-notification',
        to: { address: 'alice@example.com' },
        locale: 'en',
        change,
        occurredAt: new Date(T0),
      },
      { now: new Date(T0), accountId },
    ),
  ],
}

async function world(store: MemoryTotpStore) {
  const events: SecurityEvent[] = []
  const service = new TotpService({
    store,
    protector,
    rateLimits: new MemoryRateLimitStore(),
    recoveryCodePeppers: { active: { version: 'p1', secret: randomBytes(32) } },
    issuer: 'Portcullis Test',
    clock: () => T0,
    events: (event) => {
      events.push(event)
    },
    securityNotices: notices,
  })
  return { service, events }
}

describe('TOTP notifications in the change', () => {
  it('enabling, new recovery codes and disabling write their notification with the change, once each', async () => {
    const outbox = new MemoryMailOutbox()
    const { service, events } = await world(new MemoryTotpStore({ outbox }))
    const start = await service.beginEnrollment({ accountId: 'alice', label: 'alice' })
    const secret = Secret.fromBase32(start.revealSecret()).bytes
    const wrong = String((Number(totpCodeAt(secret, T0)) + 1) % 1_000_000).padStart(6, '0')
    await expect(service.confirmEnrollment({ accountId: 'alice', code: wrong })).rejects.toMatchObject({
      code: 'totp.invalid_code',
    })
    expect(outbox.pending()).toHaveLength(0)
    await service.confirmEnrollment({ accountId: 'alice', code: totpCodeAt(secret, T0) })
    await service.regenerateRecoveryCodes({ accountId: 'alice' })
    expect(await service.disable({ accountId: 'alice' })).toBe(true)
    expect(await service.disable({ accountId: 'alice' })).toBe(false)
    const changes = await Promise.all(
      outbox.pending().map(async (row) => {
        const message = await openOutboxMessage(protector, row)
        return message.kind === 'security-notification' ? message.change : undefined
      }),
    )
    expect(changes).toHaveLength(3)
    expect(changes).toEqual(
      expect.arrayContaining([
        { type: 'factor-added', factor: 'totp' },
        { type: 'factor-added', factor: 'recovery-codes' },
        { type: 'factor-removed', factor: 'totp' },
      ]),
    )
    // The events say so: a SecurityNotifier sink does not enqueue them again.
    const changed = events.filter((event) =>
      ['totp.enabled', 'recovery_codes.regenerated', 'totp.disabled'].includes(event.type),
    )
    expect(changed).toHaveLength(3)
    for (const event of changed) expect(event).toMatchObject({ notified: true })
  })

  it('a store without an outbox refuses the change with its notification, and changes nothing', async () => {
    const store = new MemoryTotpStore()
    const { service } = await world(store)
    const start = await service.beginEnrollment({ accountId: 'bob', label: 'bob' })
    const secret = Secret.fromBase32(start.revealSecret()).bytes
    const refused = await service.confirmEnrollment({ accountId: 'bob', code: totpCodeAt(secret, T0) }).then(
      () => undefined,
      (error: unknown) => error as { code?: string; cause?: { code?: string } },
    )
    expect(refused?.cause?.code).toBe('totp.outbox_not_configured')
    expect((await store.getTotpEnrollment('bob'))?.status).toBe('pending')
  })
})
