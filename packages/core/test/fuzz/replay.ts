// Replaying a failing fast-check run: the seed (and shrink path) fast-check prints with a counterexample,
// read from FC_SEED and FC_PATH. Without them every run draws a fresh seed, so CI keeps exploring.

/** What `fc.configureGlobal` receives to replay one run. */
export interface ReplaySettings {
  readonly seed: number
  /** The shrink path of the counterexample; with it fast-check runs that one case and stops. */
  readonly path?: string
  readonly endOnFailure?: true
}

const INT32_MIN = -(2 ** 31)
const INT32_MAX = 2 ** 31 - 1

/**
 * Reads `FC_SEED` (a 32-bit integer, as fast-check prints it) and the optional `FC_PATH` (colon-separated
 * indices such as `113:64:1`). Undefined when neither is set; a malformed value, or a path without a seed,
 * throws an error that names the variable, so a typo never silently runs with a random seed.
 */
export function replaySettings(
  env: Readonly<Record<string, string | undefined>>,
): ReplaySettings | undefined {
  const seedText = env.FC_SEED?.trim() ?? ''
  const path = env.FC_PATH?.trim() ?? ''
  if (seedText === '') {
    if (path !== '') throw new Error('FC_PATH is set without FC_SEED: set both, as fast-check printed them')
    return undefined
  }
  const seed = /^-?\d{1,10}$/.test(seedText) ? Number(seedText) : Number.NaN
  if (!Number.isInteger(seed) || seed < INT32_MIN || seed > INT32_MAX) {
    throw new Error('FC_SEED must be the 32-bit integer fast-check printed, such as -1339085825')
  }
  if (path === '') return { seed }
  if (!/^\d+(?::\d+)*$/.test(path)) {
    throw new Error(
      'FC_PATH must be the path fast-check printed: numbers separated by colons, such as 113:64:1',
    )
  }
  return { seed, path, endOnFailure: true }
}
