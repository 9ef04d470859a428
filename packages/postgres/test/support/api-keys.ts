import { randomBytes } from 'node:crypto'
import { isPortcullisError } from '@portcullis/core'
import { ApiKeyPepperRing, ApiKeyService } from '@portcullis/core/api-keys'
import { PostgresApiKeyStore, type PostgresClient } from '../../src/index.js'

export const T0 = Date.UTC(2031, 4, 6, 7, 8, 9)

/** A settable clock, in milliseconds. */
export function manualClock(start = T0) {
  let now = start
  return {
    now: () => now,
    advance(ms: number) {
      now += ms
    },
  }
}

/** One pepper ring per test file: every "instance" must share it, as real instances share the secret. */
export const peppers = new ApiKeyPepperRing({ version: 'p1', secret: new Uint8Array(randomBytes(32)) })

/** What one app instance holds: its store on its own pool, and a service over it. */
export function apiKeyInstance(client: PostgresClient, clock: () => number = manualClock().now) {
  const store = new PostgresApiKeyStore({ client })
  return { store, service: new ApiKeyService({ store, peppers, clock, prefix: 'pgtest' }) }
}

export async function codeOf(promise: Promise<unknown> | unknown): Promise<string | undefined> {
  try {
    await promise
    return undefined
  } catch (error) {
    return isPortcullisError(error) ? error.code : `<${String(error)}>`
  }
}
