// The per-address limits of local accounts (sign-in, registration, the password re-check) count a client by
// `clientRateLimitKey`: an IPv6 client by its /64 (configurable), and every request without a known address
// under one shared key, so a missing address never skips the limit.
import { describe, expect, it } from 'vitest'
import { localFixture } from '../../test/support/local-accounts.js'
import { ConfigurationError, isPortcullisError } from '../errors/portcullis-error.js'
import type { LocalRequestInfo } from './sign-in.js'

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (!isPortcullisError(error)) throw error
    return error.code
  }
  return 'accepted'
}

const wrong = (username: string) => ({ username, password: 'not the password at all' })
const from = (peerAddress: string | undefined): LocalRequestInfo =>
  peerAddress === undefined ? {} : { peerAddress }

describe('per-address limits', () => {
  it('count every address of one IPv6 /64 together, and another /64 apart', async () => {
    const { local } = await localFixture({ rateLimit: { perAddress: { limit: 3, windowSeconds: 60 } } })
    const codes: string[] = []
    for (let index = 1; index <= 4; index++) {
      const request = from(`2001:db8:1:2:${index.toString(16)}:${(index * 7919).toString(16)}::${index}`)
      codes.push(await code(local.login(wrong(`user${index}`), { transport: 'session', request })))
    }
    expect(codes).toEqual([
      'local.invalid_credentials',
      'local.invalid_credentials',
      'local.invalid_credentials',
      'local.rate_limited',
    ])
    // A zone id or brackets do not make a new client either.
    expect(
      await code(local.login(wrong('z'), { transport: 'session', request: from('2001:db8:1:2::9%eth0') })),
    ).toBe('local.rate_limited')
    expect(
      await code(local.login(wrong('z'), { transport: 'session', request: from('2001:db8:1:3::1') })),
    ).toBe('local.invalid_credentials')
  })

  it('count IPv4-mapped IPv6 as the IPv4 address', async () => {
    const { local } = await localFixture({ rateLimit: { perAddress: { limit: 1, windowSeconds: 60 } } })
    await code(local.login(wrong('a'), { transport: 'session', request: from('203.0.113.9') }))
    expect(
      await code(local.login(wrong('b'), { transport: 'session', request: from('::ffff:203.0.113.9') })),
    ).toBe('local.rate_limited')
    expect(await code(local.login(wrong('c'), { transport: 'session', request: from('203.0.113.10') }))).toBe(
      'local.invalid_credentials',
    )
  })

  it('take the IPv6 prefix length from rateLimit.ipv6PrefixLength', async () => {
    const { local } = await localFixture({
      rateLimit: { perAddress: { limit: 1, windowSeconds: 60 }, ipv6PrefixLength: 128 },
    })
    await code(local.login(wrong('a'), { transport: 'session', request: from('2001:db8::1') }))
    expect(await code(local.login(wrong('b'), { transport: 'session', request: from('2001:db8::2') }))).toBe(
      'local.invalid_credentials',
    )
    const wide = await localFixture({
      rateLimit: { perAddress: { limit: 1, windowSeconds: 60 }, ipv6PrefixLength: 48 },
    })
    await code(wide.local.login(wrong('a'), { transport: 'session', request: from('2001:db8:1:1::1') }))
    expect(
      await code(wide.local.login(wrong('b'), { transport: 'session', request: from('2001:db8:1:ff::1') })),
    ).toBe('local.rate_limited')
  })

  it('count requests without a known address under one shared key, never skipping the limit', async () => {
    const { local } = await localFixture({ rateLimit: { perAddress: { limit: 2, windowSeconds: 60 } } })
    const unknown = [undefined, '/run/app.sock', 'not an address']
    const codes: string[] = []
    for (const peer of unknown) {
      codes.push(
        await code(local.login(wrong(`u${codes.length}`), { transport: 'session', request: from(peer) })),
      )
    }
    expect(codes).toEqual(['local.invalid_credentials', 'local.invalid_credentials', 'local.rate_limited'])
    // A client with a known address keeps its own budget.
    expect(await code(local.login(wrong('k'), { transport: 'session', request: from('198.51.100.4') }))).toBe(
      'local.invalid_credentials',
    )
  })

  it('apply to registration by /64 as well', async () => {
    const { local } = await localFixture({ rateLimit: { perAddress: { limit: 2, windowSeconds: 60 } } })
    const password = 'correct horse battery staple'
    const results: string[] = []
    for (let index = 1; index <= 3; index++) {
      results.push(
        await code(local.register({ username: `new${index}`, password }, from(`2001:db8:9:9::${index}`))),
      )
    }
    expect(results).toEqual(['accepted', 'accepted', 'local.rate_limited'])
    expect(await code(local.register({ username: 'other', password }))).toBe('accepted')
  })

  it.each([-1, 129, 64.5, '64'])('refuse ipv6PrefixLength %j at construction', async (value) => {
    const attempt = localFixture({
      rateLimit: { ipv6PrefixLength: value as number },
    })
    await expect(attempt).rejects.toBeInstanceOf(ConfigurationError)
    await expect(attempt).rejects.toMatchObject({ code: 'local.invalid_config' })
  })
})
