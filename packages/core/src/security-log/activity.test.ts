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
      entries.entryOf({
        type: 'login.succeeded',
        at: at(2),
        accountId,
        clientAddress: '198.51.100.1',
        amr: 'pwd',
      }),
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
    for (const type of [
      'session.created',
      'epoch.bumped',
      'step_up.issued',
      'csrf.refused',
      'second_factor.required',
    ]) {
      expect(activityOf(entries.entryOf({ type, at: at(0), accountId: 'a' }))).toBeNull()
    }
    // A session ended by a change of the epoch: the change itself is the item (a password change, ...).
    const ended = { type: 'session.revoked', at: at(0), accountId: 'a', sessionHandle: 'h' }
    expect(activityOf(entries.entryOf({ ...ended, reason: 'epoch_bumped' }))).toBeNull()
    expect(activityOf(entries.entryOf({ ...ended, reason: 'revoked_by_account' }))?.kind).toBe('signed_out')
  })

  it('tells the sign-in method from the recorded amr, and signing out everywhere', () => {
    const signIn = (amr?: string) =>
      activityOf(
        entries.entryOf({ type: 'login.succeeded', at: at(0), accountId: 'a', userAgent: 'UA', ...{ amr } }),
      )
    expect(signIn('pwd')).toMatchObject({ kind: 'signed_in', method: 'password' })
    expect(signIn('pwd otp')).toMatchObject({ kind: 'signed_in', method: 'password_totp' })
    expect(signIn('hwk user')).toMatchObject({ kind: 'signed_in', method: 'passkey' })
    expect(signIn(undefined)).toMatchObject({ kind: 'signed_in', method: null })
    expect(signIn('pwd')?.device).toEqual({ browser: 'Firefox 133', os: 'Linux', platform: 'desktop' })
    const everywhere = entries.entryOf({
      type: 'epoch.bumped',
      at: at(0),
      accountId: 'a',
      epoch: 3,
      reason: 'sign_out_everywhere',
    })
    expect(activityOf(everywhere)?.kind).toBe('signed_out_everywhere')
  })

  it('shows connected and disconnected clients, and acts of someone else on the account', () => {
    const connected = entries.entryOf({
      type: 'oauth.client_connected',
      at: at(0),
      accountId: 'a',
      clientId: 'https://agent.example/client.json',
      clientName: 'Agent',
    })
    expect(activityOf(connected)).toMatchObject({ kind: 'client_connected', client: 'Agent' })
    const disconnected = entries.entryOf({
      type: 'oauth.client_disconnected',
      at: at(0),
      accountId: 'a',
      grantId: 'g-1',
      clientId: 'c-1',
    })
    expect(activityOf(disconnected)).toMatchObject({ kind: 'client_disconnected', client: 'c-1' })
    // An act of the application's administration (a type this model does not know) with an actor.
    const act = { type: 'admin.sessions_revoked', at: at(0), accountId: 'a', reason: 'support_ticket' }
    expect(activityOf(entries.entryOf({ ...act, actorId: 'admin-1' }))).toMatchObject({
      kind: 'administrative_act',
      actorId: 'admin-1',
      type: 'admin.sessions_revoked',
    })
    // Without an actor, or the account acting on itself, an unknown type is not shown.
    expect(activityOf(entries.entryOf(act))).toBeNull()
    expect(activityOf(entries.entryOf({ ...act, actorId: 'a' }))).toBeNull()
  })

  it('tells a provider sign-in once: the provider, with the device and address of its session', async () => {
    const log = new MemorySecurityLog()
    const accountId = 'acct-2'
    const second = (n: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, n))
    await log.append([
      entries.entryOf({
        type: 'login.succeeded',
        at: second(1),
        accountId,
        clientAddress: '203.0.113.7',
        userAgent: 'UA',
      }),
      entries.entryOf({
        type: 'oauth.signed_in',
        at: second(1),
        accountId,
        provider: 'demo',
        provisioned: false,
      }),
      // A password sign-in a minute later is its own item.
      entries.entryOf({ type: 'login.succeeded', at: second(59), accountId, amr: 'pwd', userAgent: 'UA' }),
    ])
    const page = await recentActivity(log, { accountId, limit: 10 })
    expect(page.items.map((item) => [item.type, item.method, item.address])).toEqual([
      ['login.succeeded', 'password', null],
      ['oauth.signed_in', 'demo', '203.0.113.7'],
    ])
    expect(page.items[1]?.device?.browser).toBe('Firefox 133')
  })
})
