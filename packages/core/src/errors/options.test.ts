import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { integerBetween, numberBetween, OptionErrorCodes, type OptionsShape, readOptions } from './options.js'
import { ConfigurationError } from './portcullis-error.js'

interface CacheOptions {
  readonly maxEntries?: number
}

interface ExampleOptions {
  readonly issuer: string
  readonly clockSkewSeconds?: number
  readonly cache?: false | CacheOptions
  readonly audience?: string | readonly string[]
  readonly servers?: readonly { readonly url: string }[]
  readonly store?: object
  readonly material: string | undefined
}

const SHAPE: OptionsShape<ExampleOptions> = {
  issuer: { required: true, kind: 'string' },
  clockSkewSeconds: { kind: 'number', check: integerBetween(0, 300) },
  cache: { kind: ['false', 'object'], shape: { maxEntries: { kind: 'number' } } },
  audience: { kind: ['string', 'array'], elements: { kind: 'string' } },
  servers: {
    kind: 'array',
    elements: { kind: 'object', shape: { url: { required: true, kind: 'string' } } },
  },
  store: { kind: 'object', code: 'example.store_invalid' },
  material: { kind: 'string' },
}

function failure(run: () => unknown): ConfigurationError {
  try {
    run()
  } catch (error) {
    if (error instanceof ConfigurationError) return error
    throw error
  }
  throw new Error('expected a ConfigurationError')
}

const read = (value: unknown) => readOptions(value as ExampleOptions, 'example', SHAPE)

describe('readOptions', () => {
  it('returns valid options unchanged, whatever optional keys are absent or undefined', () => {
    const options = { issuer: 'https://issuer', material: undefined, cache: false as const }
    expect(read(options)).toBe(options)
    expect(read({ issuer: 'i', clockSkewSeconds: undefined, material: 'm' })).toBeDefined()
    expect(
      read({
        issuer: 'i',
        material: 'm',
        clockSkewSeconds: 0,
        cache: { maxEntries: 5 },
        audience: ['a', 'b'],
        servers: [{ url: 'https://x' }],
        store: new Map(),
      }),
    ).toBeDefined()
    expect(read(Object.assign(Object.create(null), { issuer: 'i', material: 'm' }))).toBeDefined()
  })

  const rows: readonly {
    readonly name: string
    readonly options: unknown
    readonly code: string
    readonly option: string
    readonly message?: string
  }[] = [
    {
      name: 'undefined options',
      options: undefined,
      code: 'configuration.invalid_options',
      option: 'example',
    },
    { name: 'null options', options: null, code: 'configuration.invalid_options', option: 'example' },
    { name: 'an array', options: [], code: 'configuration.invalid_options', option: 'example' },
    { name: 'a string', options: 'issuer', code: 'configuration.invalid_options', option: 'example' },
    {
      name: 'a class instance',
      options: new (class Options {
        issuer = 'i'
      })(),
      code: 'configuration.invalid_options',
      option: 'example',
    },
    {
      name: 'a missing required option',
      options: { material: 'm' },
      code: 'configuration.missing_option',
      option: 'example.issuer',
      message: 'example: option issuer is required',
    },
    {
      name: 'a required option set to undefined',
      options: { issuer: undefined },
      code: 'configuration.missing_option',
      option: 'example.issuer',
    },
    {
      name: 'a wrongly typed option',
      options: { issuer: 42 },
      code: 'configuration.invalid_option',
      option: 'example.issuer',
      message: 'example: option issuer must be a string',
    },
    {
      name: 'a value refused by the custom check',
      options: { issuer: 'i', clockSkewSeconds: 301 },
      code: 'configuration.invalid_option',
      option: 'example.clockSkewSeconds',
      message: 'example: option clockSkewSeconds must be an integer from 0 to 300',
    },
    {
      name: 'a typo of an optional key',
      options: { issuer: 'i', clockSkewSecond: 10 },
      code: 'configuration.unknown_option',
      option: 'example.clockSkewSecond',
      message: 'example: unknown option clockSkewSecond (did you mean clockSkewSeconds?)',
    },
    {
      name: 'a typo of a required key (reported before the missing key)',
      options: { Issuer: 'i' },
      code: 'configuration.unknown_option',
      option: 'example.Issuer',
      message: 'example: unknown option Issuer (did you mean issuer?)',
    },
    {
      name: 'an unknown key with nothing close',
      options: { issuer: 'i', someUnknownOption: 1 },
      code: 'configuration.unknown_option',
      option: 'example.someUnknownOption',
      message: 'example: unknown option someUnknownOption',
    },
    {
      name: 'an unknown key in a nested shape',
      options: { issuer: 'i', cache: { maxEntrie: 1 } },
      code: 'configuration.unknown_option',
      option: 'example.cache.maxEntrie',
      message: 'example: unknown option cache.maxEntrie (did you mean cache.maxEntries?)',
    },
    {
      name: 'a wrongly typed nested option',
      options: { issuer: 'i', cache: { maxEntries: '5' } },
      code: 'configuration.invalid_option',
      option: 'example.cache.maxEntries',
    },
    {
      name: 'a value matching none of a union of kinds',
      options: { issuer: 'i', cache: true },
      code: 'configuration.invalid_option',
      option: 'example.cache',
      message: 'example: option cache must be false or an object',
    },
    {
      name: 'a class instance where a nested shape is expected',
      options: { issuer: 'i', cache: new Map() },
      code: 'configuration.invalid_option',
      option: 'example.cache',
      message: 'example: option cache must be a plain object',
    },
    {
      name: 'a wrongly typed array element',
      options: { issuer: 'i', audience: ['a', 7] },
      code: 'configuration.invalid_option',
      option: 'example.audience[1]',
    },
    {
      name: 'a missing key in an array element',
      options: { issuer: 'i', servers: [{ url: 'u' }, {}] },
      code: 'configuration.missing_option',
      option: 'example.servers[1].url',
    },
    {
      name: 'an unknown key in an array element',
      options: { issuer: 'i', servers: [{ url: 'u', descriptoin: 'd' }] },
      code: 'configuration.unknown_option',
      option: 'example.servers[0].descriptoin',
    },
    {
      name: 'a wrongly typed option with a published code',
      options: { issuer: 'i', store: 'postgres' },
      code: 'example.store_invalid',
      option: 'example.store',
    },
  ]

  it.each(rows)('refuses $name', ({ options, code, option, message }) => {
    const error = failure(() => read(options))
    expect(error.code).toBe(code)
    expect(error.option).toBe(option)
    expect(error.errorClass).toBe('configuration')
    if (message !== undefined) expect(error.message).toBe(message)
  })

  it('uses the published code for a missing option when the rule names one', () => {
    const shape: OptionsShape<{ readonly store: object }> = {
      store: { required: true, code: 'example.store_required' },
    }
    const error = failure(() => readOptions({} as { store: object }, 'example', shape))
    expect(error.code).toBe('example.store_required')
    expect(error.option).toBe('example.store')
  })

  it('never renders option values, and quotes and shortens odd key names', () => {
    const secret = 'sk_live_0123456789abcdef'
    const typed = failure(() => read({ issuer: { secret } }))
    expect(typed.message).not.toContain(secret)
    const checked = failure(() => read({ issuer: secret, clockSkewSeconds: -1 }))
    expect(checked.message).not.toContain(secret)
    const odd = failure(() => read({ issuer: 'i', 'bad key\n': 1 }))
    expect(odd.option).toBe('example."bad key\\n"')
    const long = failure(() => read({ issuer: 'i', [`k${'x'.repeat(500)}`]: 1 }))
    expect(long.message.length).toBeLessThan(160)
    expect(long.code).toBe(OptionErrorCodes.unknownOption)
  })

  it('keeps the option path in toJSON and inspect output, and leaves it out when absent', () => {
    const error = failure(() => read({ issuer: 'i', clockSkewSecond: 1 }))
    expect(error.toJSON()).toEqual({
      name: 'ConfigurationError',
      code: 'configuration.unknown_option',
      errorClass: 'configuration',
      message: 'example: unknown option clockSkewSecond (did you mean clockSkewSeconds?)',
      option: 'example.clockSkewSecond',
    })
    expect(inspect(error)).toContain("option: 'example.clockSkewSecond'")
    const plain = new ConfigurationError('x.y', 'plain')
    expect(plain.option).toBeUndefined()
    expect(Object.keys(plain.toJSON())).not.toContain('option')
  })

  it('suggests only keys close enough to be a typo', () => {
    type Small = { readonly path?: string; readonly maxBodyBytes?: number }
    const shape: OptionsShape<Small> = { path: {}, maxBodyBytes: {} }
    const near = failure(() => readOptions({ pth: 1 } as Small, 'f', shape))
    expect(near.message).toBe('f: unknown option pth (did you mean path?)')
    const far = failure(() => readOptions({ route: 1 } as Small, 'f', shape))
    expect(far.message).toBe('f: unknown option route')
    const cased = failure(() => readOptions({ MaxBodyBytes: 1 } as Small, 'f', shape))
    expect(cased.message).toBe('f: unknown option MaxBodyBytes (did you mean maxBodyBytes?)')
  })
})

describe('OptionsShape', () => {
  it('lets the compiler hold a shape to its options type', () => {
    type Two = { readonly needed: string; readonly maybe?: number; readonly blank: string | undefined }
    const shapes: OptionsShape<Two>[] = [
      { needed: { required: true }, maybe: {}, blank: {} },
      // @ts-expect-error a shape describes every option
      { needed: { required: true }, blank: {} },
      // @ts-expect-error a required option is marked required
      { needed: {}, maybe: {}, blank: {} },
      // @ts-expect-error an optional option is not marked required
      { needed: { required: true }, maybe: { required: true }, blank: {} },
      // @ts-expect-error a shape names no option the type lacks
      { needed: { required: true }, maybe: {}, blank: {}, extra: {} },
    ]
    expect(shapes).toHaveLength(5)
  })
})

describe('number checks', () => {
  it.each([
    [integerBetween(1), 1, undefined],
    [integerBetween(1), 0, 'must be an integer of at least 1'],
    [integerBetween(1), 1.5, 'must be an integer of at least 1'],
    [integerBetween(1, 10), 11, 'must be an integer from 1 to 10'],
    [integerBetween(1, 10), '5', 'must be an integer from 1 to 10'],
    [numberBetween(0), 0.5, undefined],
    [numberBetween(0), Number.NaN, 'must be a finite number of at least 0'],
    [numberBetween(0), Number.POSITIVE_INFINITY, 'must be a finite number of at least 0'],
    [numberBetween(0, 1), 2, 'must be a number from 0 to 1'],
  ] as const)('check %#', (check, value, expected) => {
    expect(check(value)).toBe(expected)
  })
})
