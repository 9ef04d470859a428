import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Deadlined, DeadlineQueue } from '../src/in-process/index.js'

class Entry extends Deadlined {
  expiredAt: number | undefined
  constructor(
    readonly name: string,
    readonly log: string[],
  ) {
    super()
  }
  expire(): void {
    this.expiredAt = performance.now()
    this.log.push(this.name)
  }
}

// A fake clock (timers and performance.now): real sleeps of 20-40 ms overran on a loaded CI machine.
const sleep = (ms: number) => vi.advanceTimersByTimeAsync(ms)

describe('the deadline queue of in-process reads', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('expires entries in order, no earlier than the timeout, and never one that left', async () => {
    const queue = new DeadlineQueue(40)
    const log: string[] = []
    const first = new Entry('first', log)
    const left = new Entry('left', log)
    const added = performance.now()
    queue.add(first)
    queue.add(left)
    await sleep(20)
    const later = new Entry('later', log)
    const laterAdded = performance.now()
    queue.add(later)
    queue.remove(left)
    expect(queue.size).toBe(2)
    await sleep(30)
    expect(log).toEqual(['first'])
    expect((first.expiredAt ?? 0) - added).toBeGreaterThanOrEqual(39)
    await sleep(40)
    expect(log).toEqual(['first', 'later'])
    expect((later.expiredAt ?? 0) - laterAdded).toBeGreaterThanOrEqual(39)
    expect(queue.size).toBe(0)
  })

  it('takes entries again after it emptied, and removing twice is harmless', async () => {
    const queue = new DeadlineQueue(10)
    const log: string[] = []
    const a = new Entry('a', log)
    queue.add(a)
    queue.remove(a)
    queue.remove(a)
    expect(queue.size).toBe(0)
    await sleep(25)
    expect(log).toEqual([])
    const b = new Entry('b', log)
    queue.add(b)
    await sleep(30)
    expect(log).toEqual(['b'])
  })
})
