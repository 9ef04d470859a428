import { describe, expect, it } from 'vitest'
import { decideLogin, maxAgeOf } from '../../src/interactions/login.js'
import type { Reauthentication } from '../../src/interactions/options.js'

const NOW = new Date('2026-01-01T12:00:00Z')
const HOUR_AGO = new Date(NOW.getTime() - 3600_000)
const STARTED = Math.floor(NOW.getTime() / 1000) - 30
const user = { accountId: 'alice', authenticatedAt: HOUR_AGO, amr: ['pwd'], acr: 'urn:password' }

function decide(params: Record<string, unknown>, proof?: Reauthentication, signedIn = true) {
  let consumed = 0
  const result = decideLogin({
    user: signedIn ? user : undefined,
    params,
    interactionIssuedAt: STARTED,
    now: NOW,
    consume: async () => {
      consumed++
      return proof
    },
  })
  return result.then((decision) => ({ decision, consumed }))
}

describe('decideLogin', () => {
  it('sends a visitor without a session to sign in', async () => {
    expect((await decide({}, undefined, false)).decision).toEqual({ kind: 'sign-in' })
  })

  it('signs the session in with its own auth time, consuming nothing', async () => {
    const { decision, consumed } = await decide({})
    expect(consumed).toBe(0)
    expect(decision).toEqual({
      kind: 'login',
      login: { accountId: 'alice', ts: HOUR_AGO.getTime() / 1000, amr: ['pwd'], acr: 'urn:password' },
    })
  })

  it('prompt=login needs a proof newer than the interaction', async () => {
    expect((await decide({ prompt: 'login consent' })).decision).toEqual({ kind: 'reauthenticate' })
    const stale = new Date((STARTED - 1) * 1000)
    expect((await decide({ prompt: 'login' }, { authenticatedAt: stale })).decision.kind).toBe(
      'reauthenticate',
    )
    const fresh = new Date(NOW.getTime() - 5_000)
    const { decision } = await decide({ prompt: 'login' }, { authenticatedAt: fresh, amr: ['hwk'] })
    expect(decision).toEqual({
      kind: 'login',
      login: {
        accountId: 'alice',
        ts: Math.floor(fresh.getTime() / 1000),
        amr: ['hwk'],
        acr: 'urn:password',
      },
    })
  })

  it('refuses a proof from the future', async () => {
    const future = new Date(NOW.getTime() + 60_000)
    expect((await decide({ prompt: 'login' }, { authenticatedAt: future })).decision.kind).toBe(
      'reauthenticate',
    )
  })

  it('max_age: a session within it signs in, an older one needs a proof within it', async () => {
    expect((await decide({ max_age: '7200' })).decision.kind).toBe('login')
    expect((await decide({ max_age: 600 })).decision.kind).toBe('reauthenticate')
    const old = new Date(NOW.getTime() - 700_000)
    expect((await decide({ max_age: '600' }, { authenticatedAt: old })).decision.kind).toBe('reauthenticate')
    const recent = new Date(NOW.getTime() - 100_000)
    expect((await decide({ max_age: '600' }, { authenticatedAt: recent })).decision.kind).toBe('login')
    expect((await decide({ max_age: '0' }, { authenticatedAt: NOW })).decision.kind).toBe('login')
  })

  it('reads max_age only as a non-negative integer', () => {
    expect(maxAgeOf({ max_age: '30' })).toBe(30)
    expect(maxAgeOf({ max_age: 30 })).toBe(30)
    for (const bad of ['-1', '1.5', '', 'abc', '99999999999', undefined, null, {}]) {
      expect(maxAgeOf({ max_age: bad })).toBeUndefined()
    }
  })
})
