import { performance } from 'node:perf_hooks'
import { ConfigurationError, InvalidInputError } from '@portcullis/core'
import {
  decodeRevocationNotice,
  encodeRevocationNotice,
  type RevocationNotice,
  type RevocationNotices,
  type RevocationSubscriber,
  revocationNotice,
} from '@portcullis/core/revocation'
import pg from 'pg'
import { asStoreError } from '../client/database-error.js'
import type { PostgresClient } from '../client/postgres-client.js'
import { revocationChannel } from './channel.js'
import {
  type ListenerTimings,
  listenerConnection,
  listenerTimings,
  type PostgresRevocationNoticesOptions,
  type RevocationListenerProblem,
  type RevocationListenerState,
} from './options.js'
import { HeartbeatProofs } from './proof.js'

/**
 * `RevocationNotices` over Postgres `LISTEN`/`NOTIFY`. The stores of this package send their notices
 * inside the transaction that makes the change (see `notifyRevocations`); this class keeps ONE dedicated
 * connection per instance listening on the schema's channel and delivers every notice to its
 * subscribers (`LocalAccounts`, `ApiKeyService`).
 *
 * It is trusted only while that connection has PROVED, within the lease, that it hears what other
 * sessions send: every heartbeat is a `NOTIFY` on a channel of this listener's own, sent through the
 * stores' pool (another session), that the listening connection must hear within `leaseMs`. A
 * connection that answers queries without holding its `LISTEN` (through a pooler in transaction mode)
 * never hears one, so it is never trusted, and the listener says why once (`onProblem`). A dropped
 * connection (`error`/`end`, a backend terminated) ends the trust at once, a silent one (a network
 * cut) within `leaseMs`. It then reconnects with exponential backoff and jitter, `LISTEN`s again,
 * flushes every subscriber (notices sent while it was away are lost) and is trusted again only after
 * its first heartbeat comes back.
 */
export class PostgresRevocationNotices implements RevocationNotices {
  /** The channel this instance listens and publishes on. */
  readonly channel: string
  readonly #pool: PostgresClient['pool']
  readonly #connectionOptions: pg.ClientConfig
  readonly #timings: ListenerTimings
  readonly #onStateChange: ((state: RevocationListenerState) => void) | undefined
  readonly #onProblem: (problem: RevocationListenerProblem) => void
  readonly #proofs = new HeartbeatProofs()
  #warned = false
  readonly #subscribers = new Set<RevocationSubscriber>()
  #connection: pg.Client | undefined
  #state: RevocationListenerState = 'connecting'
  #leaseUntil = 0
  #attempt = 0
  #retry: NodeJS.Timeout | undefined
  #heartbeat: NodeJS.Timeout | undefined
  #started: Promise<void> | undefined
  #listening: (() => void) | undefined
  #reconnects = 0

  constructor(options: PostgresRevocationNoticesOptions) {
    const client = options?.client
    if (typeof client?.pool?.query !== 'function' || typeof client.pool.options !== 'object') {
      throw new ConfigurationError(
        'postgres.revocation_options',
        'PostgresRevocationNotices needs a client from createPostgresClient',
      )
    }
    this.#pool = client.pool
    this.channel = revocationChannel(client.schema)
    this.#timings = listenerTimings(options)
    this.#connectionOptions = listenerConnection(options, client)
    this.#onStateChange = options.onStateChange
    this.#onProblem =
      options.onProblem ??
      ((problem) => process.emitWarning(problem.message, { code: problem.code.toUpperCase() }))
  }

  /**
   * Opens the listening connection; resolves once it is trusted for the first time (it listens and heard
   * its first heartbeat), or once it has said why it is not (`onProblem`), retrying with backoff until
   * then. Not awaiting it is fine: until the listener is trusted the caches behave as without notices.
   */
  start(): Promise<void> {
    this.#started ??= new Promise<void>((resolve) => {
      this.#listening = resolve
      void this.#connect()
    })
    return this.#started
  }

  get state(): RevocationListenerState {
    return this.#state
  }

  /** The backend process id of the listening connection (`pg_stat_activity.pid`), when connected. */
  get listenerProcessId(): number | undefined {
    return (this.#connection as { processID?: number } | undefined)?.processID ?? undefined
  }

  /** The channel of this listener's heartbeats (only it listens there). */
  get heartbeatChannel(): string {
    return this.#proofs.channel
  }

  /** How many times the listener reconnected after losing its connection. */
  get reconnects(): number {
    return this.#reconnects
  }

  trusted(): boolean {
    return this.#state === 'listening' && performance.now() < this.#leaseUntil
  }

  subscribe(subscriber: RevocationSubscriber): () => void {
    if (typeof subscriber?.revoked !== 'function' || typeof subscriber.flush !== 'function') {
      throw new ConfigurationError('postgres.revocation_options', 'a subscriber needs revoked and flush')
    }
    const entry: RevocationSubscriber = {
      revoked: (notice) => subscriber.revoked(notice),
      flush: () => subscriber.flush(),
    }
    this.#subscribers.add(entry)
    return () => {
      this.#subscribers.delete(entry)
    }
  }

  async publish(notice: RevocationNotice): Promise<void> {
    const checked = revocationNotice(notice)
    if (checked === undefined) {
      throw new InvalidInputError('revocation.invalid_notice', 'not a revocation notice')
    }
    try {
      await this.#pool.query('select pg_notify($1, $2)', [this.channel, encodeRevocationNotice(checked)])
    } catch (error) {
      throw asStoreError(error)
    }
  }

  /** Stops listening for good: no reconnect, never trusted again. Idempotent. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return
    this.#setState('closed')
    clearTimeout(this.#retry)
    clearInterval(this.#heartbeat)
    const connection = this.#connection
    this.#connection = undefined
    this.#listening?.()
    await connection?.end().catch(() => {})
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `PostgresRevocationNotices { channel: ${this.channel}, state: ${this.#state}, subscribers: ${this.#subscribers.size} }`
  }

  async #connect(): Promise<void> {
    if (this.#state === 'closed') return
    const connection = new pg.Client({ ...this.#connectionOptions })
    this.#connection = connection
    this.#proofs.reset()
    connection.on('notification', (message) => {
      if (this.#connection !== connection) return
      if (message.channel === this.channel) this.#deliver(message.payload)
      else if (message.channel === this.#proofs.channel) this.#proved(message.payload)
    })
    connection.on('error', () => this.#lost(connection))
    connection.on('end', () => this.#lost(connection))
    try {
      await connection.connect()
      // One statement, so both are held by the one session that answers it.
      await connection.query(`LISTEN "${this.channel}"; LISTEN "${this.#proofs.channel}"`)
    } catch {
      this.#lost(connection)
      return
    }
    if (this.#connection !== connection) return
    // Notices sent while nobody listened are lost: every subscriber drops what it holds; trust comes
    // with the first heartbeat heard.
    for (const subscriber of [...this.#subscribers]) {
      try {
        subscriber.flush()
      } catch {
        // A cache of this instance; the others must still flush.
      }
    }
    this.#leaseUntil = 0
    this.#setState('listening')
    this.#heartbeat = setInterval(() => this.#beat(connection), this.#timings.heartbeatMs)
    this.#heartbeat.unref()
    this.#beat(connection)
  }

  #deliver(payload: string | undefined): void {
    const notice = payload === undefined ? undefined : decodeRevocationNotice(payload)
    for (const subscriber of [...this.#subscribers]) {
      try {
        // Unreadable (another version's kind, a foreign writer): fail safe, drop everything.
        if (notice === undefined) subscriber.flush()
        else subscriber.revoked(notice)
      } catch {
        // A failing subscriber must not keep the notice from the others.
      }
    }
  }

  /**
   * One heartbeat: a `NOTIFY` on this listener's heartbeat channel, sent through the stores' pool. A
   * heartbeat committed and still unheard `leaseMs` later ends the connection (the trust ended with the
   * lease already); one the pool is slow to send only lets the trust lapse.
   */
  #beat(connection: pg.Client): void {
    if (this.#connection !== connection) return
    const now = performance.now()
    if (this.#proofs.unheard(now, this.#timings.leaseMs)) {
      if (this.#leaseUntil === 0) this.#unproven()
      this.#lost(connection)
      return
    }
    const { number, payload } = this.#proofs.send(now)
    this.#pool.query('select pg_notify($1, $2)', [this.#proofs.channel, payload]).then(
      () => this.#proofs.committed(number, performance.now()),
      () => this.#proofs.failed(number),
    )
  }

  /** A heartbeat heard: trusted until its send time plus the lease. */
  #proved(payload: string | undefined): void {
    const sentAt = this.#proofs.heard(payload)
    if (sentAt === undefined || this.#state !== 'listening') return
    this.#leaseUntil = Math.max(this.#leaseUntil, sentAt + this.#timings.leaseMs)
    this.#attempt = 0
    this.#listening?.()
  }

  /** The connection listens but never heard its own heartbeat: said once, with the likely cause. */
  #unproven(): void {
    this.#listening?.()
    if (this.#warned) return
    this.#warned = true
    try {
      this.#onProblem({
        code: 'postgres.listener_unproven',
        message: `revocation listener on channel ${this.channel} did not hear its own NOTIFY within ${this.#timings.leaseMs} ms and is not trusted (caches read the database as if it were down); is it connected through a pooler in transaction mode (PgBouncer)? Give PostgresRevocationNotices a connectionString to the server itself`,
      })
    } catch {
      // An observer's failure is not the listener's.
    }
  }

  /** The connection failed or ended: distrust at once, discard it, and reconnect after a backoff. */
  #lost(connection: pg.Client): void {
    if (this.#connection !== connection) return
    this.#connection = undefined
    this.#proofs.reset()
    this.#leaseUntil = 0
    clearInterval(this.#heartbeat)
    connection.removeAllListeners('notification')
    connection.on('error', () => {})
    void connection.end().catch(() => {})
    if (this.#state === 'closed') return
    if (this.#state === 'listening') this.#reconnects += 1
    this.#setState('connecting')
    const delay = Math.min(
      this.#timings.maxReconnectDelayMs,
      this.#timings.reconnectDelayMs * 2 ** this.#attempt,
    )
    this.#attempt = Math.min(this.#attempt + 1, 30)
    const jittered = delay * (0.8 + Math.random() * 0.4)
    this.#retry = setTimeout(() => void this.#connect(), jittered)
    this.#retry.unref()
  }

  #setState(state: RevocationListenerState): void {
    if (this.#state === state) return
    this.#state = state
    try {
      this.#onStateChange?.(state)
    } catch {
      // An observer's failure is not the listener's.
    }
  }
}
