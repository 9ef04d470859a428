import type { LookupAddress } from 'node:dns'
import { describe, expect, it } from 'vitest'
import { isAllowedAddress } from '../src/index.js'
import { guardedLookup } from '../src/server/outbound-fetch.js'

describe('isAllowedAddress', () => {
  it.each([
    '10.0.0.1',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '::',
    '::1',
    '[::1]',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '::127.0.0.1',
    '64:ff9b::a00:1',
    '2001:db8::1',
    '2002:a00:1::1',
    'not-an-address',
    '',
  ])('refuses %s', (address) => {
    expect(isAllowedAddress(address, false)).toBe(false)
  })

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '2a00:1450:4001::200e',
  ])('allows the public address %s', (address) => {
    expect(isAllowedAddress(address, false)).toBe(true)
  })

  it('lets loopback through in development mode, and nothing else private', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      expect(isAllowedAddress(address, true)).toBe(true)
    for (const address of ['10.0.0.1', '169.254.169.254', 'fe80::1', '::ffff:192.168.0.1', '0.0.0.0']) {
      expect(isAllowedAddress(address, true)).toBe(false)
    }
  })
})

describe('guardedLookup', () => {
  const run = (answers: readonly LookupAddress[], all: boolean) =>
    new Promise<{ error: unknown; result: unknown }>((resolve) => {
      const lookup = guardedLookup(false, async () => answers)
      lookup(
        'host.test',
        { all } as never,
        ((error: unknown, result: unknown) => resolve({ error, result })) as never,
      )
    })

  it('refuses a host when any of its answers is private (no mixing public and private)', async () => {
    const { error } = await run(
      [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
      true,
    )
    expect((error as { code?: string }).code).toBe('ERR_PORTCULLIS_REFUSED_ADDRESS')
  })

  it('answers public addresses in the shape the caller asked for', async () => {
    const answers = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1111', family: 6 },
    ]
    expect(await run(answers, true)).toEqual({ error: null, result: answers })
    expect((await run(answers, false)).result).toBe('93.184.216.34')
  })
})
