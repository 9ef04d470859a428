// The table of refused configurations that core's factories and each adapter's run: every row names what
// is wrong, builds the options from a valid baseline, and expects a `ConfigurationError` with its code
// and the path of the option to blame.
import { describe, expect, it } from 'vitest'
import { ConfigurationError } from '../../src/errors/index.js'

export type Options = Record<string, unknown>

/** One refused configuration: what is wrong, the options, the code and the option path expected. */
export type Row = readonly [what: string, options: (valid: Options) => unknown, code: string, option: string]

export interface Factory {
  readonly name: string
  /** Options the factory accepts, so every row fails for its own reason only. */
  readonly valid: () => Options
  /** Calls the factory; may return a promise (async factories reject instead of throwing). */
  readonly create: (options: unknown) => unknown
  readonly rows: readonly Row[]
}

/** The valid options with `extra` on top. */
export const with_ =
  (extra: Options) =>
  (valid: Options): Options => ({ ...valid, ...extra })

/** The valid options without `key`. */
export const without =
  (key: string) =>
  (valid: Options): Options => {
    const { [key]: _dropped, ...rest } = valid
    return rest
  }

/** The rows every factory shares: options that are not a plain object, and an unknown key. */
export function common(name: string): Row[] {
  return [
    ['options that are a string', () => 'options', 'configuration.invalid_options', name],
    ['options that are null', () => null, 'configuration.invalid_options', name],
    ['options that are an array', () => [], 'configuration.invalid_options', name],
    [
      'an unknown option',
      with_({ someUnknownOption: 1 }),
      'configuration.unknown_option',
      `${name}.someUnknownOption`,
    ],
  ]
}

/** What `run` throws or rejects with; undefined when it succeeds. */
export async function failure(run: () => unknown): Promise<unknown> {
  try {
    await run()
  } catch (error) {
    return error
  }
  return undefined
}

/** Per factory: the valid baseline is accepted, and every row is refused with its code and option. */
export function describeFactoryOptions(factories: readonly Factory[]): void {
  describe.each(factories)('$name options', ({ valid, create, rows }) => {
    it('accepts the valid baseline, so every refusal below has its own cause', async () => {
      expect(await failure(() => create(valid()))).toBeUndefined()
    })

    it.each(rows)('refuses %s', async (_what, options, code, option) => {
      const error = await failure(() => create(options(valid())))
      expect(error).toBeInstanceOf(ConfigurationError)
      expect(error).toMatchObject({ code, option, errorClass: 'configuration' })
    })
  })
}
