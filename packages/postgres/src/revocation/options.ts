import { ConfigurationError } from '@portcullis/core'
import type pg from 'pg'
import type { PostgresClient } from '../client/postgres-client.js'

/** Where the listener is: connecting (or waiting to reconnect), listening, or closed for good. */
export type RevocationListenerState = 'connecting' | 'listening' | 'closed'

/** Why a listening connection is not trusted, told once (`onProblem`). */
export interface RevocationListenerProblem {
  /** `postgres.listener_unproven`: it listens, but never heard its own heartbeat `NOTIFY`. */
  readonly code: 'postgres.listener_unproven'
  /** What happened and what to do; no connection string, no secret. */
  readonly message: string
}

export interface PostgresRevocationNoticesOptions {
  /**
   * The stores' client from `createPostgresClient`: the listener opens one more connection like its
   * pool's (to `connectionString` when given), and sends its heartbeats through the pool.
   */
  readonly client: Pick<PostgresClient, 'pool' | 'schema'> & Partial<Pick<PostgresClient, 'pooler'>>
  /**
   * Where the listening connection goes, when the client's pool goes through a pooler in transaction
   * mode (which cannot hold a `LISTEN`): the server itself (`postgres://...`, never logged). Required
   * with a client created with `pooler: 'transaction'`. Default: the client's connection string.
   */
  readonly connectionString?: string
  /**
   * `application_name` of the listening connection, to tell instances' listeners apart in
   * `pg_stat_activity` (`portcullis-listener-web-1`). Default: the client's `applicationName`.
   */
  readonly applicationName?: string
  /**
   * How often the listener proves it hears notices: a `NOTIFY` on a channel of its own, sent through the
   * stores' pool, that the listening connection must hear. Default 1000 ms; 100 to 60000.
   */
  readonly heartbeatMs?: number
  /**
   * How long after sending its last heartbeat that came back the listener is still trusted: the bound on
   * how long a silently broken connection (a network cut, no FIN) is believed. A heartbeat unheard this
   * long ends the connection. Default 3000 ms; more than `heartbeatMs`, at most 300000.
   */
  readonly leaseMs?: number
  /** The first reconnect delay; it doubles per failed attempt (with ±20% jitter). Default 100 ms. */
  readonly reconnectDelayMs?: number
  /** The longest reconnect delay. Default 5000 ms. */
  readonly maxReconnectDelayMs?: number
  /** Told when the listener starts listening, loses its connection, or is closed (for health and logs). */
  readonly onStateChange?: (state: RevocationListenerState) => void
  /**
   * Told once, the first time a connection listens but does not hear its own heartbeat within the lease
   * (typically a pooler in transaction mode between it and the server): the listener stays untrusted.
   * Default: `process.emitWarning` (printed on stderr).
   */
  readonly onProblem?: (problem: RevocationListenerProblem) => void
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
  for (const name of ['onStateChange', 'onProblem'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') {
      throw new ConfigurationError('postgres.revocation_options', `${name} must be a function`)
    }
  }
  return { heartbeatMs, leaseMs, reconnectDelayMs, maxReconnectDelayMs }
}

/**
 * The listening connection's settings: the pool's (its timeouts, schema, TLS), with `keepAlive`, and the
 * options' own connection string and application name. A client behind a pooler in transaction mode
 * needs a connection string of its own.
 */
export function listenerConnection(
  options: PostgresRevocationNoticesOptions,
  client: PostgresRevocationNoticesOptions['client'],
): pg.ClientConfig {
  const { connectionString, applicationName } = options
  if (connectionString !== undefined) {
    let url: URL | undefined
    try {
      url = new URL(connectionString)
    } catch {
      url = undefined
    }
    if (url === undefined || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')) {
      throw new ConfigurationError(
        'postgres.revocation_options',
        'connectionString must be a postgres: URL of the server itself',
      )
    }
  } else if (client.pooler === 'transaction') {
    throw new ConfigurationError(
      'postgres.revocation_options',
      "the client goes through a pooler in transaction mode (pooler: 'transaction'), which cannot hold a LISTEN: give PostgresRevocationNotices a connectionString to the server itself",
    )
  }
  if (applicationName !== undefined && (typeof applicationName !== 'string' || applicationName === '')) {
    throw new ConfigurationError('postgres.revocation_options', 'applicationName must be a non-empty string')
  }
  const { max: _max, idleTimeoutMillis: _idle, ...pooled } = client.pool.options as pg.PoolConfig
  return {
    ...pooled,
    ...(connectionString === undefined ? {} : { connectionString }),
    ...(applicationName === undefined ? {} : { application_name: applicationName }),
    keepAlive: true,
  }
}
