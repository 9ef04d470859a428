import { describe, expect, it } from 'vitest'
import { isPortcullisError } from '../errors/portcullis-error.js'
import { serializeProtectedEnvelope } from './envelope-format.js'
import {
  type EnvelopeInventoryReport,
  emptyTally,
  envelopesByKeyVersion,
  envelopesUnder,
  tallyEnvelope,
  unreadableEnvelopes,
} from './inventory.js'
import { type EnvelopeCounting, MemoryEnvelopeInventory } from './memory-inventory.js'

const text = (keyVersion: string) =>
  serializeProtectedEnvelope({ keyVersion, ciphertext: new Uint8Array([1, 2, 3, 4]) })

describe('tallyEnvelope', () => {
  it('counts envelopes by the key version of their label, values without a readable label as unreadable', () => {
    const tally = emptyTally()
    for (const value of [
      text('k1'),
      text('k1.2'),
      { keyVersion: 'k1', ciphertext: new Uint8Array([9]) },
      'pe1.k1.',
      'pe1.k1.a=',
      'pe1.k.1.AAAA',
      'pe1.bad label.AAAA',
      'plain',
      `pe2.${text('k1').slice(4)}`,
    ]) {
      tallyEnvelope(tally, value)
    }
    // `pe1.k1.a=` has a readable label and a damaged ciphertext: it still counts under k1.
    expect(tally).toEqual({ keyVersions: { k1: 3, 'k1.2': 1, 'k.1': 1 }, unreadable: 4 })
  })
})

const report: EnvelopeInventoryReport = {
  countedAt: new Date(0),
  locations: [
    {
      location: 'a.x',
      holding: 'oauth-token-vault',
      keyVersions: { v1: 2, v2: 5 },
      unreadable: 1,
      method: 'm',
    },
    { location: 'b.y', holding: 'totp-secret', keyVersions: { v2: 1 }, unreadable: 0, method: 'm' },
    { location: 'c.z', holding: 'oauth-transaction', keyVersions: {}, unreadable: 2, method: 'm' },
  ],
}

describe('reading a report', () => {
  it('totals per key version (most used first), unreadable values, and where a key is still needed', () => {
    expect([...envelopesByKeyVersion(report)]).toEqual([
      ['v2', 6],
      ['v1', 2],
    ])
    expect(unreadableEnvelopes(report)).toBe(3)
    expect(envelopesUnder(report, 'v2')).toEqual([
      { location: 'a.x', holding: 'oauth-token-vault', count: 5 },
      { location: 'b.y', holding: 'totp-secret', count: 1 },
    ])
    expect(envelopesUnder(report, 'v0')).toEqual([])
  })
})

describe('MemoryEnvelopeInventory', () => {
  const store = (counts: Record<string, number>, seen: Date[]): EnvelopeCounting => ({
    countEnvelopes: (now) => {
      seen.push(now)
      return [
        { location: 'vault', holding: 'oauth-token-vault', keyVersions: counts, unreadable: 1, method: 'm' },
      ]
    },
  })

  it('sums locations of one name over stores (one account store per provider) at the clock time', async () => {
    const seen: Date[] = []
    const at = new Date('2031-01-01T00:00:00Z')
    const inventory = new MemoryEnvelopeInventory({
      stores: [store({ v1: 1 }, seen), store({ v1: 2, v2: 1 }, seen)],
      clock: () => at,
    })
    const counted = await inventory.count()
    expect(counted.countedAt).toBe(at)
    expect(counted.locations).toEqual([
      {
        location: 'vault',
        holding: 'oauth-token-vault',
        keyVersions: { v1: 3, v2: 1 },
        unreadable: 2,
        method: 'm',
      },
    ])
    expect(seen).toEqual([at, at])
  })

  it('refuses stores that cannot count and a clock that is not one', async () => {
    const codes: unknown[] = []
    for (const options of [{ stores: [{}] }, { stores: 'x' }, { stores: [], clock: 3 }] as never[]) {
      try {
        new MemoryEnvelopeInventory(options)
      } catch (error) {
        codes.push(isPortcullisError(error) && error.code)
      }
    }
    expect(codes).toEqual([
      'protection.inventory_stores_invalid',
      'protection.inventory_stores_invalid',
      'protection.inventory_clock_invalid',
    ])
    const broken = new MemoryEnvelopeInventory({ stores: [], clock: () => new Date(Number.NaN) })
    await expect(broken.count()).rejects.toMatchObject({ code: 'protection.inventory_clock_invalid' })
  })
})
