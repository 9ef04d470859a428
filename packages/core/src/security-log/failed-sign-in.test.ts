import { describe, expect, it } from 'vitest'
import { localFixture } from '../../test/support/local-accounts.js'
import { SecurityLogEntries } from './entries.js'

const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'

describe('a failed sign-in in the security log', () => {
  it("carries the attempt's User-Agent, and the entry keeps the parsed device, never the header", async () => {
    const fixture = await localFixture()
    await fixture.local.register({ username: 'alice', password: 'correct horse battery staple' })
    const attempt = (username: string) =>
      fixture.local
        .login(
          { username, password: 'wrong horse battery staple' },
          { transport: 'session', request: { peerAddress: '203.0.113.5', userAgent: CHROME_WINDOWS } },
        )
        .catch((error: unknown) => error)
    await attempt('alice')
    await attempt('nobody-here')
    const failed = fixture.events.filter((event) => event.type === 'login.failed')
    expect(failed.map((event) => [event.reason, event.userAgent])).toEqual([
      ['bad_password', CHROME_WINDOWS],
      ['unknown_account', CHROME_WINDOWS],
    ])
    const entries = new SecurityLogEntries({
      describeUserAgent: (header) =>
        header.includes('Chrome/131')
          ? { browser: 'Chrome 131', os: 'Windows 10', platform: 'desktop' }
          : null,
    })
    for (const event of failed) {
      const entry = entries.entryOf(event)
      expect(entry.device).toEqual({ browser: 'Chrome 131', os: 'Windows 10', platform: 'desktop' })
      expect(JSON.stringify(entry)).not.toContain('Mozilla/5.0')
    }
  })

  it('bounds a hostile User-Agent as a session keeps it', async () => {
    const fixture = await localFixture()
    await fixture.local.register({ username: 'bob', password: 'correct horse battery staple' })
    await fixture.local
      .login(
        { username: 'bob', password: 'wrong horse battery staple' },
        { transport: 'session', request: { userAgent: `x${'A'.repeat(10_000)}` } },
      )
      .catch(() => undefined)
    const [failed] = fixture.events.filter((event) => event.type === 'login.failed')
    expect(failed?.type === 'login.failed' && (failed.userAgent?.length ?? 0)).toBeLessThanOrEqual(512)
    expect(failed?.type === 'login.failed' && (failed.userAgent?.length ?? 0)).toBeGreaterThan(0)
  })
})
