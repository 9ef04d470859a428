import { randomBytes } from 'node:crypto'

/**
 * The heartbeats of one listener: each is a `NOTIFY` on a channel only this listener listens on, with a
 * payload naming this listener (a random nonce) and the heartbeat's number. Hearing one proves that
 * notices sent by other sessions up to its commit reached the listening connection: Postgres delivers
 * notices to a listening session in commit order.
 */
export class HeartbeatProofs {
  /** `portcullis_heartbeat_<nonce>`: 45 bytes, within an identifier's 63. */
  readonly channel: string
  readonly #nonce: string
  #next = 0
  /** Heartbeats sent and not heard yet: number -> when it was sent and, once committed, when. */
  readonly #pending = new Map<number, { sentAt: number; committedAt?: number }>()

  constructor() {
    this.#nonce = randomBytes(12).toString('hex')
    this.channel = `portcullis_heartbeat_${this.#nonce}`
  }

  /** A new heartbeat sent at `now`: its payload. */
  send(now: number): { readonly number: number; readonly payload: string } {
    const number = this.#next
    this.#next += 1
    this.#pending.set(number, { sentAt: now })
    return { number, payload: `${this.#nonce}:${number}` }
  }

  /** The heartbeat's `NOTIFY` committed at `now` (it is on its way to the listener). */
  committed(number: number, now: number): void {
    const entry = this.#pending.get(number)
    if (entry !== undefined) entry.committedAt = now
  }

  /** The heartbeat could not be sent; it proves nothing either way. */
  failed(number: number): void {
    this.#pending.delete(number)
  }

  /**
   * A payload heard on the heartbeat channel: when it is one of ours, when that heartbeat was sent (the
   * listener has heard everything committed before then); undefined for anything else.
   */
  heard(payload: string | undefined): number | undefined {
    const [nonce, text] = (payload ?? '').split(':')
    if (nonce !== this.#nonce || text === undefined || !/^\d+$/.test(text)) return undefined
    const number = Number(text)
    const entry = this.#pending.get(number)
    if (entry === undefined) return undefined
    for (const key of this.#pending.keys()) if (key <= number) this.#pending.delete(key)
    return entry.sentAt
  }

  /**
   * A heartbeat whose `NOTIFY` committed `leaseMs` ago or more and was never heard: the connection does
   * not hear what it is sent (it lost its `LISTEN`, or never held it). A heartbeat the pool has not sent
   * yet proves nothing either way: it only lets the trust lapse, and a slow or saturated pool never
   * costs the listening connection.
   */
  unheard(now: number, leaseMs: number): boolean {
    for (const entry of this.#pending.values()) {
      if (entry.committedAt !== undefined && now - entry.committedAt >= leaseMs) return true
    }
    return false
  }

  /** Forgets every heartbeat in flight (a new connection proves itself from scratch). */
  reset(): void {
    this.#pending.clear()
  }
}
