import { describe, expect, it } from 'vitest'
import { InvalidInputError } from '../errors/portcullis-error.js'
import { associatedData, MAX_ASSOCIATED_DATA_BYTES } from './associated-data.js'

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

describe('associatedData', () => {
  it('encodes a format byte and a 4-byte big-endian length before every component', () => {
    expect(hex(associatedData('p', 'ab', new Uint8Array([0xff])))).toBe(
      ['01', '00000001', '70', '00000002', '6162', '00000001', 'ff'].join(''),
    )
  })

  it('keeps component boundaries, so shifting bytes between parts changes the result', () => {
    const samples = [
      associatedData('purpose', 'a', 'bc'),
      associatedData('purpose', 'ab', 'c'),
      associatedData('purpose', 'abc'),
      associatedData('purpose', 'abc', ''),
      associatedData('purpose', '', 'abc'),
      associatedData('purposea', 'bc'),
      associatedData('purpose'),
    ].map(hex)
    expect(new Set(samples).size).toBe(samples.length)
  })

  it('treats a string and its UTF-8 bytes as the same part', () => {
    expect(associatedData('p', 'żółw')).toEqual(associatedData('p', new TextEncoder().encode('żółw')))
  })

  it('rejects blank purposes, foreign part types and lone surrogates with typed errors', () => {
    const cases: Array<() => unknown> = [
      () => associatedData(''),
      () => associatedData('   '),
      () => associatedData(42 as unknown as string),
      () => associatedData('p', 7 as unknown as string),
      () => associatedData('p', null as unknown as string),
      () => associatedData('p', 'ok', '\uD800'),
      () => associatedData('p', '\uDC00x'),
    ]
    for (const run of cases) {
      expect(run).toThrow(InvalidInputError)
      try {
        run()
      } catch (error) {
        expect((error as InvalidInputError).code).toBe('protection.associated_data_invalid')
      }
    }
    expect(associatedData('p', '\uD83D\uDE00')).toBeInstanceOf(Uint8Array)
  })

  it('refuses oversized associated data instead of allocating it', () => {
    const big = new Uint8Array(MAX_ASSOCIATED_DATA_BYTES)
    expect(() => associatedData('p', big)).toThrowError(
      expect.objectContaining({ code: 'protection.associated_data_too_large' }),
    )
    const fits = new Uint8Array(MAX_ASSOCIATED_DATA_BYTES - 1 - 4 - 1 - 4)
    expect(associatedData('p', fits).byteLength).toBe(MAX_ASSOCIATED_DATA_BYTES)
  })
})
