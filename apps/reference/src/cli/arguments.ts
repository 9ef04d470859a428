/** A parsed command line: positional words and `--name value` options (repeatable), `--flag` alone. */
export interface Arguments {
  readonly positional: readonly string[]
  readonly options: ReadonlyMap<string, readonly string[]>
}

/** The usage mistake: exit code 2, one line. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/** Splits `argv`; `flags` names the options that take no value. */
export function parseArguments(argv: readonly string[], flags: ReadonlySet<string> = new Set()): Arguments {
  const positional: string[] = []
  const options = new Map<string, string[]>()
  for (let index = 0; index < argv.length; index += 1) {
    const word = argv[index] as string
    if (!word.startsWith('--')) {
      positional.push(word)
      continue
    }
    const [name = '', inline] = word.slice(2).split(/=(.*)/s, 2)
    const value = flags.has(name) ? 'true' : (inline ?? argv[++index])
    if (name === '' || value === undefined) throw new UsageError(`option --${name} needs a value`)
    options.set(name, [...(options.get(name) ?? []), value])
  }
  return { positional, options }
}

/** The single value of `--name`, or `fallback`. */
export function option(args: Arguments, name: string, fallback?: string): string | undefined {
  const values = args.options.get(name)
  if (values !== undefined && values.length > 1) throw new UsageError(`option --${name} is given twice`)
  return values?.[0] ?? fallback
}

/** A whole number option within `[min, max]`. */
export function integerOption(
  args: Arguments,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const text = option(args, name)
  if (text === undefined) return fallback
  const value = Number(text)
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`)
  }
  return value
}

/** Refuses options the command does not know (a typo must not be ignored). */
export function onlyOptions(args: Arguments, known: readonly string[]): void {
  for (const name of args.options.keys()) {
    if (!known.includes(name)) throw new UsageError(`unknown option --${name}`)
  }
}
