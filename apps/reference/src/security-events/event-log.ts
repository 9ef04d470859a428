import type { Impersonator } from '@portcullis/core/authentication'
import type { SecurityEvent, SecurityEventSink } from '@portcullis/core/local-accounts'

/**
 * Who acted, when it was not the account itself: an impersonation of it names the administrator
 * (`actorId`) and the impersonation, as Portcullis's own events do.
 */
// A type, not an interface: the durable log's `LoggableEvent` takes it with its index signature.
export type ActedBy = {
  readonly actorId?: string
  readonly impersonationId?: string
}

/** The `ActedBy` fields of a request's principal (none for the person's own requests). */
export function actedBy(principal: { readonly impersonator?: Impersonator } | undefined): ActedBy {
  const impersonator = principal?.impersonator
  return impersonator === undefined
    ? {}
    : { actorId: impersonator.accountId, impersonationId: impersonator.impersonationId }
}

/** Events of this app's own actions that Portcullis does not emit itself (API-key lifecycle, disconnecting an OAuth client). */
export type AppEvent = ActedBy &
  (
    | {
        readonly type: 'api_key.issued'
        readonly at: Date
        readonly accountId: string
        readonly keyId: string
      }
    | {
        readonly type: 'api_key.revoked'
        readonly at: Date
        readonly accountId: string
        readonly keyId: string
      }
    | {
        readonly type: 'api_key.rotated'
        readonly at: Date
        readonly accountId: string
        readonly keyId: string
        readonly replacementKeyId: string
        readonly overlapSeconds: number
      }
    | {
        readonly type: 'oauth.client_disconnected'
        readonly at: Date
        readonly accountId: string
        readonly grantId: string
      }
  )

/** One recorded event: its type, time and non-secret fields (never a token, password or digest). */
export interface LoggedEvent {
  readonly type: string
  readonly at: Date
  readonly fields: Readonly<Record<string, string | number>>
}

export interface SecurityEventLogOptions {
  /** Events kept per account (the oldest is dropped first). Default 50. */
  readonly perAccount?: number
  /** Accounts kept (the least recently active is dropped first). Default 1000. */
  readonly maxAccounts?: number
  /** Also hands every event to this (the durable security log's writer), those without an account too. */
  readonly forward?: (event: SecurityEvent | AppEvent) => void
}

/** A bounded ring of events for one account. */
class Ring {
  readonly #items: LoggedEvent[] = []
  #next = 0

  constructor(readonly capacity: number) {}

  push(event: LoggedEvent): void {
    if (this.#items.length < this.capacity) this.#items.push(event)
    else this.#items[this.#next] = event
    this.#next = (this.#next + 1) % this.capacity
  }

  /** Newest first. */
  newest(limit: number): LoggedEvent[] {
    const ordered = [...this.#items.slice(this.#next), ...this.#items.slice(0, this.#next)].reverse()
    return ordered.slice(0, limit)
  }
}

function loggedEvent(event: SecurityEvent | AppEvent): LoggedEvent {
  const { type, at, ...rest } = event
  const fields: Record<string, string | number> = {}
  for (const [name, value] of Object.entries(rest)) {
    if (name !== 'accountId' && (typeof value === 'string' || typeof value === 'number')) fields[name] = value
  }
  return { type, at: new Date(at.getTime()), fields }
}

/**
 * An in-memory security-event sink keeping the recent events of each account, for the "security events"
 * page. Bounded in both directions, so a flood of events cannot grow memory. Production applications send
 * the same events to their audit log or SIEM as well (`tee`).
 */
export class SecurityEventLog {
  readonly #perAccount: number
  readonly #maxAccounts: number
  readonly #forward: ((event: SecurityEvent | AppEvent) => void) | undefined
  readonly #rings = new Map<string, Ring>()

  constructor(options: SecurityEventLogOptions = {}) {
    this.#perAccount = options.perAccount ?? 50
    this.#maxAccounts = options.maxAccounts ?? 1000
    this.#forward = options.forward
  }

  /** The `SecurityEventSink` to hand to Portcullis (`events` of local accounts, the OAuth routes, ...). */
  readonly sink: SecurityEventSink = (event) => this.record(event)

  /**
   * Keeps `event` under its account. Events without an account (a sign-in for an unknown name, a
   * cross-site form refused before any session was read) are not kept: each person sees their own
   * events only, and nobody the site's.
   */
  record(event: SecurityEvent | AppEvent): void {
    try {
      this.#forward?.(event)
    } catch {
      // the durable log never fails the request, nor this page's record
    }
    const accountId = (event as { accountId?: unknown }).accountId
    if (typeof accountId !== 'string') return
    let ring = this.#rings.get(accountId)
    if (ring === undefined) {
      ring = new Ring(this.#perAccount)
      if (this.#rings.size >= this.#maxAccounts) {
        const oldest = this.#rings.keys().next().value
        if (oldest !== undefined) this.#rings.delete(oldest)
      }
    } else {
      this.#rings.delete(accountId)
    }
    this.#rings.set(accountId, ring)
    ring.push(loggedEvent(event))
  }

  /** The account's recent events, newest first. */
  recent(accountId: string, limit = this.#perAccount): readonly LoggedEvent[] {
    return this.#rings.get(accountId)?.newest(limit) ?? []
  }
}

/** A sink that hands every event to each of `sinks` (one failing never stops the others). */
export function tee(...sinks: readonly SecurityEventSink[]): SecurityEventSink {
  return (event) => {
    for (const sink of sinks) {
      try {
        void Promise.resolve(sink(event)).catch(() => undefined)
      } catch {
        // a failing sink never fails the request, nor the other sinks
      }
    }
  }
}
