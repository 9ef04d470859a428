import { InvalidInputError } from '../errors/portcullis-error.js'
import { type RevocationNotice, revocationNotice } from './notice.js'
import { deliverToEach, type RevocationNotices, type RevocationSubscriber } from './revocation-notices.js'

/**
 * In-process `RevocationNotices`, for the memory stores and single-instance applications: `publish`
 * delivers to every subscriber synchronously, before it returns, so a memory store that publishes in the
 * same step as its change evicts every cache of the process before the revoking call resolves. Always
 * trusted: nothing can be lost between a store and a cache of one process.
 */
export class MemoryRevocationNotices implements RevocationNotices {
  readonly #subscribers = new Set<RevocationSubscriber>()

  trusted(): boolean {
    return true
  }

  subscribe(subscriber: RevocationSubscriber): () => void {
    if (typeof subscriber?.revoked !== 'function' || typeof subscriber.flush !== 'function') {
      throw new InvalidInputError('revocation.invalid_subscriber', 'a subscriber needs revoked and flush')
    }
    // A wrapper per subscription: subscribing one object twice gives two independent subscriptions.
    const entry: RevocationSubscriber = {
      revoked: (notice) => subscriber.revoked(notice),
      flush: () => subscriber.flush(),
    }
    this.#subscribers.add(entry)
    return () => {
      this.#subscribers.delete(entry)
    }
  }

  publish(notice: RevocationNotice): Promise<void> {
    const checked = revocationNotice(notice)
    if (checked === undefined) {
      return Promise.reject(new InvalidInputError('revocation.invalid_notice', 'not a revocation notice'))
    }
    deliverToEach(this.#subscribers, (subscriber) => subscriber.revoked(checked))
    return Promise.resolve()
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MemoryRevocationNotices { subscribers: ${this.#subscribers.size} }`
  }
}
