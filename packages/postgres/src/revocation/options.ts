import { ConfigurationError } from '@portcullis/core'
import type { PostgresClient } from '../client/postgres-client.js'

/** Where the listener is: connecting (or waiting to reconnect), listening, or closed for good. */
export type RevocationListenerState = 'connecting' | 'listening' | 'closed'

export interface PostgresRevocationNoticesOptions {
  /** The stores' client from `createPostgresClient`: the listener opens one more connection like its pool's. */
  readonly client: Pick<PostgresClient, 'pool' | 'schema'>
  /** How often the listening connection proves it is alive (`select 1`). Default 1000 ms; 100 to 60000. */
  readonly heartbeatMs?: number
  /**
   * How long after its last answered heartbeat the listener is still trusted: the bound on how long a
   * silently broken connection (a network cut, no FIN) is believed. Default 3000 ms; more than
   * `heartbeatMs`, at most 300000.
   */
  readonly leaseMs?: number
  /** The first reconnect delay; it doubles per failed attempt (with ±20% jitter). Default 100 ms. */
  readonly reconnectDelayMs?: number
  /** The longest reconnect delay. Default 5000 ms. */
  readonly maxReconnectDelayMs?: number
  /** Told when the listener starts listening, loses its connection, or is closed (for health and logs). */
  readonly onStateChange?: (state: RevocationListenerState) => void
}

export interface ListenerTimings {
  readonly heartbeatMs: number
  readonly leaseMs: number
  readonly reconnectDelayMs: number
  readonly maxReconnectDelayMs: number
}

function integer(value: unknown, fallback: number, min: number, max: number, name: string): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigurationError(
      'postgres.revocation_options',
      `${name} must be an integer from ${min} to ${max}`,
    )
  }
  return value
}

export function listenerTimings(options: PostgresRevocationNoticesOptions): ListenerTimings {
  const heartbeatMs = integer(options.heartbeatMs, 1_000, 100, 60_000, 'heartbeatMs')
  const leaseMs = integer(
    options.leaseMs,
    Math.max(3_000, heartbeatMs * 3),
    heartbeatMs + 1,
    300_000,
    'leaseMs',
  )
  const reconnectDelayMs = integer(options.reconnectDelayMs, 100, 10, 60_000, 'reconnectDelayMs')
  const maxReconnectDelayMs = integer(
    options.maxReconnectDelayMs,
    5_000,
    reconnectDelayMs,
    600_000,
    'maxReconnectDelayMs',
  )
  if (options.onStateChange !== undefined && typeof options.onStateChange !== 'function') {
    throw new ConfigurationError('postgres.revocation_options', 'onStateChange must be a function')
  }
  return { heartbeatMs, leaseMs, reconnectDelayMs, maxReconnectDelayMs }
}
