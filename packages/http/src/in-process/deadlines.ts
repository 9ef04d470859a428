/**
 * Something that expires when its deadline passes, unless it leaves its `DeadlineQueue` first.
 *
 * @internal For adapters: an in-process read in flight.
 */
export abstract class Deadlined {
  /** @internal Queue links and the deadline (`performance.now()` milliseconds). */
  deadline = 0
  /** @internal */
  previous: Deadlined | undefined = undefined
  /** @internal */
  next: Deadlined | undefined = undefined
  /** @internal */
  queued = false

  /** Called once, by the queue, when the deadline has passed. */
  abstract expire(): void
}

/**
 * Deadlines that all lie the same `timeoutMs` after their start, so insertion order is deadline order: a
 * linked list with one timer for the oldest entry, instead of a timer per entry (a timer costs every read
 * an allocation and two trips through Node's timer lists). Leaving the queue is O(1); an entry expires no
 * earlier than `timeoutMs` after it joined. The timer keeps the process alive only while entries wait.
 *
 * @internal For adapters: the timeouts of in-process reads.
 */
export class DeadlineQueue {
  readonly #timeoutMs: number
  #head: Deadlined | undefined
  #tail: Deadlined | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  #referenced = false

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs
  }

  add(entry: Deadlined): void {
    const now = performance.now()
    entry.deadline = now + this.#timeoutMs
    entry.queued = true
    entry.next = undefined
    entry.previous = this.#tail
    if (this.#tail === undefined) this.#head = entry
    else this.#tail.next = entry
    this.#tail = entry
    if (this.#timer === undefined) this.#arm(this.#timeoutMs)
    else if (!this.#referenced) {
      this.#timer.ref()
      this.#referenced = true
    }
  }

  remove(entry: Deadlined): void {
    if (!entry.queued) return
    entry.queued = false
    const { previous, next } = entry
    if (previous === undefined) this.#head = next
    else previous.next = next
    if (next === undefined) this.#tail = previous
    else next.previous = previous
    entry.previous = undefined
    entry.next = undefined
    // an idle queue must not hold the process open: the timer stays, unreferenced, for the next entry
    if (this.#head === undefined && this.#timer !== undefined && this.#referenced) {
      this.#timer.unref()
      this.#referenced = false
    }
  }

  #arm(delayMs: number): void {
    this.#timer = setTimeout(() => this.#fire(), delayMs)
    this.#referenced = true
  }

  #fire(): void {
    this.#timer = undefined
    const now = performance.now()
    let entry = this.#head
    while (entry !== undefined && entry.deadline <= now) {
      this.remove(entry)
      entry.expire()
      entry = this.#head
    }
    if (entry !== undefined) {
      this.#arm(Math.max(1, Math.ceil(entry.deadline - now)))
    }
  }

  /** Entries waiting (for tests and diagnostics). */
  get size(): number {
    let count = 0
    for (let entry = this.#head; entry !== undefined; entry = entry.next) count += 1
    return count
  }
}
