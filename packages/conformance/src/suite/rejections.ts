import type { Check } from './suite.js'

/** The error `code` a promise rejects with, or `undefined` when it resolves. */
export async function rejectionCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise
    return undefined
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code
    return typeof code === 'string' ? code : `<${String(error)}>`
  }
}

/** Checks that `promise` rejects with the typed error `code`. */
export async function expectCode(
  check: Check,
  promise: Promise<unknown>,
  code: string,
  what: string,
): Promise<void> {
  const actual = await rejectionCode(promise)
  check(actual === code, `${what}: expected ${code}, got ${actual ?? 'success'}`)
}
