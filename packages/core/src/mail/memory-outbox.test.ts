import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { AESGCMOAuthTransactionProtector } from '../protection/aes-gcm-protector.js'
import { OAuthTransactionProtectorKey } from '../protection/key.js'
import { MemoryMailOutbox } from './memory-outbox.js'
import type { MailMessage } from './messages.js'
import { openOutboxMessage, sealOutboxMessage } from './outbox-seal.js'

const T0 = new Date('2026-01-01T00:00:00Z')
const message: MailMessage = {
  kind: 'password-reset',
  to: { address: 'ada@example.com', name: 'Ada' },
  locale: 'en',
  code: '123456',
  link: 'https://app.example/reset?flow=abc#code=123456',
  validForMinutes: 60,
}

describe('MemoryMailOutbox', () => {
  it('writes a change’s entries only through the function prepareWrite returns', async () => {
    const outbox = new MemoryMailOutbox()
    const protector = new AESGCMOAuthTransactionProtector({
      activeKey: new OAuthTransactionProtectorKey('k1', randomBytes(32)),
    })
    const entry = await sealOutboxMessage(protector, message, { now: T0, accountId: 'acct-1' })
    const write = outbox.prepareWrite([entry])
    expect(outbox.pending()).toEqual([])
    write()
    expect(outbox.pending().map((row) => row.id)).toEqual([entry.id])
    expect(() => outbox.prepareWrite([entry])).toThrow(
      expect.objectContaining({ code: 'mail.duplicate_outbox_entry' }),
    )
    const [claimed] = await outbox.claim({ now: T0, limit: 10, leaseSeconds: 30 })
    expect(claimed?.envelope).not.toContain('123456')
    expect(await openOutboxMessage(protector, claimed as NonNullable<typeof claimed>)).toEqual(message)
  })
})
