import { describe, expect, it } from 'vitest'
import { activityOf, recentActivity } from './activity.js'
import { SecurityLogEntries } from './entries.js'
import { MemorySecurityLog } from './memory.js'

const entries = new SecurityLogEntries({
  describeUserAgent: () => ({ browser: 'Firefox 133', os: 'Linux', platform: 'desktop' }),
})
const at = (n: number) => new Date(Date.UTC(2026, 11, 1, 12, n))

describe('recent activity', () => {
  it('shows sign-ins with method, device and address, failures, factor and identity changes, newest first', async () => {
    const log = new MemorySecurityLog()
    const accountId = 'acct-1'
    await log.append([
      entries.entryOf({
        type: 'login.failed',
        at: at(1),
        accountId,
        reason: 'bad_password',
        clientAddress: '198.51.100.1',
      }),
      entries.entryOf({ type: 'login.succeeded', at: at(2), accountId, clientAddress: '198.51.100.1' }),
      entries.entryOf({ type: 'session.created', at: at(2), accountId, sessionHandle: 'h', userAgent: 'UA' }),
      entries.entryOf({ type: 'passkey.registered', at: at(3), accountId, credentialId: 'c1' }),
      entries.entryOf({ type: 'oauth.linked', at: at(4), accountId, provider: 'google', relinked: false }),
      entries.entryOf({
        type: 'passkey.used',
        at: at(5),
        accountId,
        credentialId: 'c1',
        ceremony: 'sign_in',
      }),
      entries.entryOf({
        type: 'passkey.used',
        at: at(6),
        accountId,
        credentialId: 'c1',
        ceremony: 'step_up',
      }),
      entries.entryOf({
        type: 'account.status_changed',
        at: at(7),
        accountId,
        status: 'disabled',
        actorId: 'admin-1',
      }),
    ])
    const page = await recentActivity(log, { accountId, limit: 50 })
    expect(page.items.map((item) => [item.kind, item.method])).toEqual([
      ['account_changed', null],
      ['signed_in', 'passkey'],
      ['identity_linked', 'google'],
      ['factor_added', 'passkey'],
      ['signed_in', 'password'],
      ['sign_in_failed', 'password'],
    ])
    expect(page.items[0]?.actorId).toBe('admin-1')
    expect(page.items.at(-1)).toMatchObject({ address: '198.51.100.1', reason: 'bad_password' })
    expect(page.nextCursor).toBeNull()
  })

  it('leaves out what a person does not need (session bookkeeping, step-up, epochs)', () => {
    for (const type of ['session.created', 'epoch.bumped', 'step_up.issued', 'csrf.refused']) {
      expect(activityOf(entries.entryOf({ type, at: at(0), accountId: 'a' }))).toBeNull()
    }
  })
})
