import { Buffer } from 'node:buffer'
import type { Check } from '../suite/suite.js'

/** The one error code the protector port throws for an envelope that cannot be opened. */
export const ENVELOPE_REJECTED = 'protection.envelope_rejected'

const encoder = new TextEncoder()

export function utf8(text: string): Uint8Array {
  return encoder.encode(text)
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}

/**
 * Awaits an operation that must be refused with the port's typed error. The check fails when it
 * resolves, when it throws anything without the `protection.envelope_rejected` code, or when the error
 * message repeats a secret.
 */
export async function expectRejected(
  check: Check,
  operation: () => Promise<unknown>,
  what: string,
  secrets: readonly string[] = [],
): Promise<void> {
  let outcome: { resolved: true } | { resolved: false; error: unknown }
  try {
    await operation()
    outcome = { resolved: true }
  } catch (error) {
    outcome = { resolved: false, error }
  }
  check(!outcome.resolved, `${what} was accepted`)
  if (outcome.resolved) return
  const code = (outcome.error as { code?: unknown } | null)?.code
  check(
    code === ENVELOPE_REJECTED,
    `${what} threw ${describeError(outcome.error)} instead of ${ENVELOPE_REJECTED}`,
  )
  const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error)
  for (const secret of secrets)
    check(!message.includes(secret), `${what}: the error message contains the secret`)
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return `${error.name}${typeof code === 'string' ? ` (${code})` : ''}`
  }
  return typeof error
}

/** Flattens any stored form (rows, records, Maps, Buffers, nested JSON text) into searchable text. */
export function storedText(value: unknown): string {
  const parts: string[] = []
  const seen = new Set<unknown>()
  const visit = (item: unknown, depth: number): void => {
    if (depth > 32 || item === null || item === undefined) return
    if (typeof item === 'string') {
      parts.push(item)
      return
    }
    if (typeof item === 'number' || typeof item === 'bigint' || typeof item === 'boolean') {
      parts.push(String(item))
      return
    }
    if (typeof item !== 'object' || seen.has(item)) return
    seen.add(item)
    if (item instanceof ArrayBuffer) {
      parts.push(...bytesForms(new Uint8Array(item)))
      return
    }
    if (ArrayBuffer.isView(item)) {
      parts.push(...bytesForms(new Uint8Array(item.buffer, item.byteOffset, item.byteLength)))
      return
    }
    if (item instanceof Date) {
      parts.push(item.toISOString())
      return
    }
    if (item instanceof Map) {
      for (const [key, entry] of item) {
        visit(key, depth + 1)
        visit(entry, depth + 1)
      }
      return
    }
    if (item instanceof Set || Array.isArray(item)) {
      for (const entry of item) visit(entry, depth + 1)
      return
    }
    for (const [key, entry] of Object.entries(item)) {
      parts.push(key)
      visit(entry, depth + 1)
    }
  }
  visit(value, 0)
  return parts.join('\n')
}

/** Bytes as hex, base64, base64url and latin1 text: how a store might show a digest. */
export function bytesForms(bytes: Uint8Array): string[] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return [
    buffer.toString('hex'),
    buffer.toString('base64'),
    buffer.toString('base64url'),
    buffer.toString('latin1'),
  ]
}

/** A secret in the encodings a careless store might use. */
export function encodingsOf(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8')
  return [secret, bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')]
}
