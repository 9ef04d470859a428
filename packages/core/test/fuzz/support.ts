// Shared pieces of the fuzz suite: typed-error outcomes, near-valid mutations and a linear-time bound.
// fast-check chooses a new seed on every run and prints it (with the path of the shrunk counterexample)
// on failure; FC_SEED=<seed> FC_PATH=<path> replays it (test/fuzz/replay.setup.ts, CONTRIBUTING.md).
import fc from 'fast-check'
import { isPortcullisError, type PortcullisError } from '../../src/errors/portcullis-error.js'

/** Runs per property: enough to shake out edge cases, few enough that the suite takes seconds. */
export const RUNS = { pure: 1000, structured: 500, crypto: 200, io: 150 } as const

export type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: PortcullisError }

/**
 * Runs a parser: its value, or the `PortcullisError` it threw. Any other throw (TypeError, RangeError,
 * SyntaxError, URIError, a string) propagates, so the property fails with the untyped error itself.
 */
export function outcome<T>(run: () => T): Outcome<T> {
  try {
    return { ok: true, value: run() }
  } catch (error) {
    if (isPortcullisError(error)) return { ok: false, error }
    throw error
  }
}

/** The async form of `outcome`. */
export async function settled<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() }
  } catch (error) {
    if (isPortcullisError(error)) return { ok: false, error }
    throw error
  }
}

/** CPU time used by this process so far, in milliseconds (time spent descheduled does not count). */
function processCpuMs(): number {
  const used = process.cpuUsage()
  return (used.user + used.system) / 1000
}

/** The CPU time `run` takes by `clock`, and its result. */
function cpuTime<T>(run: () => T, clock: () => number): { readonly ms: number; readonly value: T } {
  const start = clock()
  const value = run()
  return { ms: clock() - start, value }
}

/** The linear reference: one pass reading every UTF-16 code unit of `text`, as a parser's scanner does. */
function scan(text: string): number {
  let hash = 0
  for (let index = 0; index < text.length; index++) hash = (hash * 31 + text.charCodeAt(index)) | 0
  return hash
}

/**
 * Runs `run` over a megabyte-scale `input` and fails when its CPU time exceeds `factor` times that of a
 * linear scan over the same input, plus `slackMs` (20) for timer and garbage-collector noise. The scan is timed
 * first (the best of three); `run` gets up to three tries to come in under the bound. A ratio of CPU
 * times, not a wall-clock figure: a loaded or slower machine slows both sides, and time spent descheduled
 * counts for neither. It catches quadratic or catastrophic-backtracking work (a megabyte makes that
 * thousands of times slower), not small slowdowns.
 */
export function linearIn<T>(
  input: string,
  run: () => T,
  {
    factor = 200,
    slackMs = 20,
    clock = processCpuMs,
  }: { readonly factor?: number; readonly slackMs?: number; readonly clock?: () => number } = {},
): T {
  const reference = Math.min(...[0, 1, 2].map(() => cpuTime(() => scan(input), clock).ms))
  const bound = factor * reference + slackMs
  let best = Number.POSITIVE_INFINITY
  for (let attempt = 0; attempt < 3; attempt++) {
    const measured = cpuTime(run, clock)
    if (process.env.PORTCULLIS_FUZZ_TIMING === '1') {
      console.info(`linearIn: ${measured.ms.toFixed(2)} ms vs scan ${reference.toFixed(2)} ms`)
    }
    if (measured.ms <= bound) return measured.value
    best = Math.min(best, measured.ms)
  }
  throw new Error(
    `took ${best.toFixed(1)} ms of CPU, over ${factor}x a linear scan of the input ` +
      `(${reference.toFixed(2)} ms) + ${slackMs} ms`,
  )
}

/** Characters that look like ASCII separators or letters, invisible ones, and bidi controls. */
export const LOOKALIKES: readonly string[] = [
  '\u0430', // Cyrillic a
  '\u0435', // Cyrillic e
  '\u043e', // Cyrillic o
  '\u0455', // Cyrillic s
  '\u212a', // Kelvin sign (lower-cases to k)
  '\u0130', // dotted capital I (lower-cases to two code units)
  '\u017f', // long s (upper-cases to S)
  '\uff0e', // full-width full stop
  '\u3002', // ideographic full stop
  '\uff61', // half-width ideographic full stop
  '\u2024', // one dot leader
  '\uff0f', // full-width solidus
  '\u2215', // division slash
  '\u2044', // fraction slash
  '\uff3c', // full-width reverse solidus
  '\uff20', // full-width commercial at
  '\u00a0', // no-break space
  '\u200b', // zero-width space
  '\ufeff', // byte order mark
  '\u202e', // right-to-left override
  '\u2028', // line separator
  '\ud800', // lone high surrogate
  '\udc00', // lone low surrogate
  '\u{1f600}', // astral (surrogate pair)
]

/** C0, DEL and C1 controls, and the line breaks JavaScript knows. */
export const CONTROLS: readonly string[] = [
  '\u0000',
  '\t',
  '\n',
  '\r',
  '\u000b',
  '\u000c',
  '\u001f',
  '\u007f',
  '\u0085',
]

/**
 * One inserted or substituted piece: a look-alike, a control, ASCII, any code unit, a given token, or (three
 * times as likely) a character of the format's own `alphabet`, so mutations mostly stay near the grammar.
 */
export function piece(tokens: readonly string[] = [], alphabet = ''): fc.Arbitrary<string> {
  const options: fc.WeightedArbitrary<string>[] = [
    { arbitrary: fc.constantFrom(...LOOKALIKES), weight: 1 },
    { arbitrary: fc.constantFrom(...CONTROLS), weight: 1 },
    { arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 3 }), weight: 1 },
    { arbitrary: codeUnits(1, 2), weight: 1 },
  ]
  if (tokens.length > 0) options.push({ arbitrary: fc.constantFrom(...tokens), weight: 2 })
  if (alphabet.length > 0) options.push({ arbitrary: fc.constantFrom(...alphabet), weight: 3 })
  return fc.oneof(...options)
}

type MutationKind =
  | 'replace'
  | 'insert'
  | 'delete'
  | 'truncate'
  | 'duplicate'
  | 'swap-case'
  | 'append'
  | 'prepend'
  | 'flip-bit'

interface MutationSpec {
  readonly kind: MutationKind
  readonly at: number
  readonly length: number
  readonly piece: string
}

function applyMutation(text: string, spec: MutationSpec): string {
  const at = text.length === 0 ? 0 : spec.at % (text.length + 1)
  const end = Math.min(text.length, at + 1 + (spec.length % 8))
  switch (spec.kind) {
    case 'replace':
      return text.slice(0, at) + spec.piece + text.slice(at + 1)
    case 'insert':
      return text.slice(0, at) + spec.piece + text.slice(at)
    case 'delete':
      return text.slice(0, at) + text.slice(end)
    case 'truncate':
      return text.slice(0, at)
    case 'duplicate':
      return text.slice(0, end) + text.slice(at, end) + text.slice(end)
    case 'swap-case': {
      const char = text.charAt(at)
      const swapped = char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()
      return text.slice(0, at) + swapped + text.slice(at + 1)
    }
    case 'append':
      return text + spec.piece
    case 'prepend':
      return spec.piece + text
    case 'flip-bit': {
      if (text.length === 0) return spec.piece
      const index = Math.min(at, text.length - 1)
      const code = text.charCodeAt(index) ^ (1 << (spec.length % 7))
      return text.slice(0, index) + String.fromCharCode(code) + text.slice(index + 1)
    }
  }
}

const mutationSpec = (tokens: readonly string[], alphabet: string): fc.Arbitrary<MutationSpec> =>
  fc.record({
    kind: fc.constantFrom<MutationKind>(
      'replace',
      'insert',
      'delete',
      'truncate',
      'duplicate',
      'swap-case',
      'append',
      'prepend',
      'flip-bit',
    ),
    at: fc.nat(),
    length: fc.nat(),
    piece: piece(tokens, alphabet),
  })

/**
 * Valid inputs with one to three mutations: a substituted, inserted or deleted character (look-alikes and
 * controls included), a truncation, a duplicated run (an added segment), a case swap, a flipped bit, or a
 * token such as `.`, `//` or `"kid":` appended or prepended. The mutated text may still be valid.
 */
export function nearValid(
  valid: fc.Arbitrary<string>,
  tokens: readonly string[] = [],
  alphabet = '',
): fc.Arbitrary<string> {
  return fc
    .tuple(valid, fc.array(mutationSpec(tokens, alphabet), { minLength: 1, maxLength: 3 }))
    .map(([text, specs]) => specs.reduce(applyMutation, text))
}

/**
 * Any UTF-16 code units, lone surrogates included, mostly ASCII. (Built by hand: fast-check's `binary`
 * unit builds a table of every code point on first use, which costs a second per test file.)
 */
export function codeUnits(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const unit = fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 0x7f }), weight: 3 },
    { arbitrary: fc.integer({ min: 0x80, max: 0xffff }), weight: 1 },
  )
  return fc.array(unit, { minLength, maxLength }).map((codes) => String.fromCharCode(...codes))
}

/** Arbitrary text of every flavour: printable ASCII, any code units (lone surrogates included), Unicode. */
export function anyText(maxLength = 200): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: 'grapheme-ascii', maxLength }),
    codeUnits(0, maxLength),
    fc.string({ unit: 'grapheme', maxLength }),
  )
}

export const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

export const b64u = (bytes: Uint8Array | string): string => Buffer.from(bytes).toString('base64url')
