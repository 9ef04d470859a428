import { describe, expect, it, vi } from 'vitest'
import { localFixture } from '../../../test/support/local-accounts.js'
import type { SecurityEvent } from '../security-events.js'
import type { SessionSignIn } from '../sign-in.js'
import { MemorySessionStore } from './memory-session-store.js'

const credentials = { username: 'alice', password: 'correct horse battery staple' }
const CROSS_SITE = { method: 'POST', secFetchSite: 'cross-site', origin: 'https://evil.example' } as const

/** Waits (bounded in turns, not in time) until a `csrf.refused` event is recorded after `from`. */
async function refusal(events: readonly SecurityEvent[], from: number) {
  for (let turn = 0; turn < 100; turn += 1) {
    const found = events.slice(from).find((event) => event.type === 'csrf.refused')
    if (found !== undefined) return found as Extract<SecurityEvent, { type: 'csrf.refused' }>
    await new Promise((resolve) => setImmediate(resolve))
  }
  throw new Error('no csrf.refused event')
}

async function signedIn(overrides: Parameters<typeof localFixture>[0] = {}) {
  const fixture = await localFixture(overrides)
  const { accountId } = await fixture.local.register(credentials)
  const session = (await fixture.local.login(credentials, { transport: 'session' })) as SessionSignIn
  return { ...fixture, accountId, session }
}

describe('csrf.refused names the session of the refused request', () => {
  it('names the account and handle of the live session the cookie carries, and renews nothing', async () => {
    const { local, events, accountId, session, sessions, clock } = await signedIn()
    const before = (await sessions.list({ accountId, now: new Date(clock()) }))[0]
    const from = events.length
    expect(local.csrf.check({ ...CROSS_SITE, sessionId: session.sessionId }).ok).toBe(false)
    const event = await refusal(events, from)
    expect(event).toMatchObject({
      reason: 'csrf.cross_site',
      method: 'POST',
      accountId,
      sessionHandle: session.handle,
    })
    // No secret in the event: neither the session id nor its token.
    expect(JSON.stringify(event)).not.toContain(session.sessionId)
    expect(JSON.stringify(event)).not.toContain(session.csrfToken)
    expect(event).not.toHaveProperty('actorId')
    const after = (await sessions.list({ accountId, now: new Date(clock()) }))[0]
    expect(after?.lastSeenAt).toEqual(before?.lastSeenAt)
    expect(after?.idleExpiresAt).toEqual(before?.idleExpiresAt)
  })

  it('names nobody for a forged, unknown or revoked session id, or a pre-session seed', async () => {
    const { local, events, session, accountId } = await signedIn()
    const seed = local.csrf.newSeed().setCookie.split(';')[0]?.split('=')[1] ?? ''
    await local.revokeSession(accountId, session.handle, {})
    for (const sessionId of ['A'.repeat(43), seed, session.sessionId]) {
      const from = events.length
      expect(local.csrf.check({ ...CROSS_SITE, sessionId }).ok).toBe(false)
      const event = await refusal(events, from)
      expect(event).not.toHaveProperty('accountId')
      expect(event).not.toHaveProperty('sessionHandle')
    }
  })

  it('is still told, without the account, when the session store fails', async () => {
    const store = new MemorySessionStore()
    store.get = async () => {
      throw new Error('connection refused')
    }
    const { local, events } = await localFixture({ sessions: store })
    const from = events.length
    expect(local.csrf.check({ ...CROSS_SITE, sessionId: 'B'.repeat(43) }).ok).toBe(false)
    const event = await refusal(events, from)
    expect(event).toMatchObject({ reason: 'csrf.cross_site', method: 'POST' })
    expect(event).not.toHaveProperty('accountId')
  })

  it('tells a burst beyond the reads under way at once without waiting for the store', async () => {
    const store = new MemorySessionStore()
    const pending: (() => void)[] = []
    store.get = () =>
      new Promise((resolve) => {
        pending.push(() => resolve(null))
      })
    const { local, events } = await localFixture({ sessions: store })
    const from = events.length
    for (let i = 0; i < 100; i += 1) local.csrf.check({ ...CROSS_SITE, sessionId: 'C'.repeat(43) })
    // 64 wait for their read; the other 36 are told at once, none is lost.
    expect(pending).toHaveLength(64)
    expect(events.slice(from).filter((event) => event.type === 'csrf.refused')).toHaveLength(36)
    for (const release of pending) release()
    await new Promise((resolve) => setImmediate(resolve))
    expect(events.slice(from).filter((event) => event.type === 'csrf.refused')).toHaveLength(100)
  })

  it('is told without the account when the store does not answer in time, and once only', async () => {
    const store = new MemorySessionStore()
    let answer: ((value: null) => void) | undefined
    store.get = () =>
      new Promise((resolve) => {
        answer = resolve
      })
    const { local, events } = await localFixture({ sessions: store })
    vi.useFakeTimers()
    try {
      const from = events.length
      local.csrf.check({ ...CROSS_SITE, sessionId: 'F'.repeat(43) })
      const refusals = () => events.slice(from).filter((event) => event.type === 'csrf.refused')
      expect(refusals()).toHaveLength(0)
      vi.advanceTimersByTime(2000)
      expect(refusals()).toHaveLength(1)
      expect(refusals()[0]).not.toHaveProperty('accountId')
      // The late answer tells nothing more.
      answer?.(null)
      await vi.runAllTimersAsync()
      expect(refusals()).toHaveLength(1)
    } finally {
      vi.useRealTimers()
    }
  })

  it('names the account the caller gives, and the impersonation it names, at once', async () => {
    const { local, events, accountId } = await signedIn()
    const from = events.length
    local.csrf.check({
      ...CROSS_SITE,
      sessionId: 'D'.repeat(43),
      accountId,
      impersonator: { accountId: 'the-admin', impersonationId: 'imp-1' },
    })
    expect(events.slice(from)).toEqual([
      expect.objectContaining({
        type: 'csrf.refused',
        accountId,
        actorId: 'the-admin',
        impersonationId: 'imp-1',
      }),
    ])
  })

  it('lets a same-origin request through without reading the store', async () => {
    const store = new MemorySessionStore()
    let reads = 0
    const get = store.get.bind(store)
    store.get = (digest, now) => {
      reads += 1
      return get(digest, now)
    }
    const { local } = await localFixture({ sessions: store })
    const decision = local.csrf.check({
      method: 'POST',
      secFetchSite: 'same-origin',
      origin: 'https://app.example',
      sessionId: 'E'.repeat(43),
    })
    expect(decision.ok).toBe(true)
    expect(reads).toBe(0)
  })
})
