import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { emitSecurityEvent, type SecurityEvent } from './security-events.js'

const AT = new Date('2031-01-02T03:04:05Z')
const event: SecurityEvent = { type: 'login.failed', at: AT, reason: 'bad_password', accountId: 'acct-1' }

const flush = () => new Promise((resolve) => setImmediate(resolve))

describe('emitSecurityEvent', () => {
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => unhandled.push(reason)
  beforeEach(() => {
    unhandled.length = 0
    process.on('unhandledRejection', onUnhandled)
  })
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled)
  })

  it('delivers the event to a synchronous sink', () => {
    const seen: SecurityEvent[] = []
    emitSecurityEvent((received) => {
      seen.push(received)
    }, event)
    expect(seen).toEqual([event])
  })

  it('swallows a throwing sink and reports it to onSinkError', () => {
    const failure = new Error('audit log down')
    const onSinkError = vi.fn()
    expect(() =>
      emitSecurityEvent(
        () => {
          throw failure
        },
        event,
        onSinkError,
      ),
    ).not.toThrow()
    expect(onSinkError).toHaveBeenCalledWith(failure, event)
  })

  it('never lets a rejecting sink escape as an unhandled rejection', async () => {
    const onSinkError = vi.fn()
    emitSecurityEvent(async () => Promise.reject(new Error('siem unreachable')), event, onSinkError)
    emitSecurityEvent(async () => Promise.reject(new Error('no handler either')), event)
    await flush()
    await flush()
    expect(unhandled).toEqual([])
    expect(onSinkError).toHaveBeenCalledTimes(1)
    expect(onSinkError.mock.calls[0]?.[0]).toMatchObject({ message: 'siem unreachable' })
  })

  it('does not wait for a slow sink', async () => {
    let finished = false
    let release: () => void = () => {}
    const slow = () =>
      new Promise<void>((resolve) => {
        release = () => {
          finished = true
          resolve()
        }
      })
    const returned: unknown = emitSecurityEvent(slow, event)
    expect(returned).toBeUndefined()
    expect(finished).toBe(false)
    release()
    await flush()
    expect(finished).toBe(true)
  })

  it('survives a throwing error handler, a hostile thenable and a missing sink', async () => {
    expect(() =>
      emitSecurityEvent(
        () => {
          throw new Error('sink')
        },
        event,
        () => {
          throw new Error('handler too')
        },
      ),
    ).not.toThrow()
    const hostile = {
      // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the point of this test
      get then() {
        throw new Error('getter')
      },
    }
    const onSinkError = vi.fn()
    expect(() =>
      emitSecurityEvent(() => hostile as unknown as Promise<void>, event, onSinkError),
    ).not.toThrow()
    const throwingThen = {
      // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the point of this test
      then: () => {
        throw new Error('then throws')
      },
    }
    expect(() =>
      emitSecurityEvent(() => throwingThen as unknown as Promise<void>, event, onSinkError),
    ).not.toThrow()
    emitSecurityEvent(
      async () => Promise.reject(new Error('async')),
      event,
      () => {
        throw new Error('handler of rejection throws')
      },
    )
    expect(() => emitSecurityEvent(undefined, event)).not.toThrow()
    await flush()
    await flush()
    expect(unhandled).toEqual([])
    expect(onSinkError).toHaveBeenCalledTimes(1)
    expect(onSinkError.mock.calls[0]?.[0]).toMatchObject({ message: 'then throws' })
  })

  it('types events as a discriminated union of non-secret fields', () => {
    const events: SecurityEvent[] = [
      { type: 'login.succeeded', at: AT, accountId: 'a', clientAddress: '198.51.100.1' },
      { type: 'login.rate_limited', at: AT, retryAfterSeconds: 30, clientAddress: '198.51.100.1' },
      { type: 'session.created', at: AT, accountId: 'a', sessionHandle: 'h1' },
      { type: 'session.revoked', at: AT, accountId: 'a', sessionHandle: 'h1', reason: 'logout' },
      { type: 'refresh.reuse_detected', at: AT, accountId: 'a', familyId: 'f1' },
      { type: 'password.changed', at: AT, accountId: 'a' },
      { type: 'epoch.bumped', at: AT, accountId: 'a', epoch: 3, reason: 'password_changed' },
      { type: 'csrf.refused', at: AT, reason: 'csrf.cross_site', method: 'POST' },
      { type: 'step_up.issued', at: AT, accountId: 'a', purpose: 'delete-account' },
      { type: 'step_up.consumed', at: AT, accountId: 'a', purpose: 'delete-account' },
    ]
    // @ts-expect-error a field of another event type is not allowed
    const wrong: SecurityEvent = { type: 'password.changed', at: AT, accountId: 'a', familyId: 'f1' }
    // @ts-expect-error a required field is missing
    const missing: SecurityEvent = { type: 'session.created', at: AT, accountId: 'a' }
    expect(new Set(events.map((entry) => entry.type)).size).toBe(10)
    expect([wrong, missing]).toHaveLength(2)
  })
})
