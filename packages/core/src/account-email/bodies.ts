import { normalizeEmailAddress } from '../accounts/email-address.js'
import { invalidEmailFlowInput } from './errors.js'

// Request bodies of the email flows: plain objects (JSON or form) with known string members only, so
// a typo is a 400 and nothing is written.

const MAX_FIELD = 4096

/** The string members of `body`: each of `required` present, the `optional` ones when given, nothing else. */
export function readFields<R extends string, O extends string = never>(
  body: unknown,
  required: readonly R[],
  optional: readonly O[] = [],
): { readonly [K in R]: string } & { readonly [K in O]?: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidEmailFlowInput('the body must be an object')
  }
  const known = new Set<string>([...required, ...optional])
  const fields: Record<string, string> = {}
  for (const [key, value] of Object.entries(body)) {
    if (!known.has(key)) throw invalidEmailFlowInput(`unknown member ${JSON.stringify(key.slice(0, 64))}`)
    if (value === undefined) continue
    if (typeof value !== 'string' || value.length > MAX_FIELD) {
      throw invalidEmailFlowInput(`${key} must be a string of at most ${MAX_FIELD} characters`)
    }
    fields[key] = value
  }
  for (const key of required) {
    if (fields[key] === undefined || fields[key] === '') throw invalidEmailFlowInput(`${key} is required`)
  }
  return fields as { readonly [K in R]: string } & { readonly [K in O]?: string }
}

/** A presented address, normalized; `email.invalid_address` (400) when it is not one. */
export function readAddress(
  value: string,
  normalization: Parameters<typeof normalizeEmailAddress>[1],
): string {
  return normalizeEmailAddress(value, normalization)
}

const FLOW = /^[A-Za-z0-9_-]{22,64}$/
const CODE = /^[A-Za-z0-9]{4,64}$/

/** A flow handle and a code as typed (spaces and dashes a person adds are dropped from the code). */
export function readFlowAndCode(fields: { readonly flow: string; readonly code: string }): {
  readonly flow: string
  readonly code: string
} {
  const code = fields.code.replace(/[\s-]/g, '').toUpperCase()
  if (!FLOW.test(fields.flow) || !CODE.test(code)) return { flow: '', code: '' }
  return { flow: fields.flow, code }
}
