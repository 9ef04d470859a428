import { describe, expect, it } from 'vitest'
import { compareHttp, compareOps } from '../src/compare.js'
import { listen } from '../src/listen.js'

describe('compareOps', () => {
  it('measures a slower candidate as a ratio below one and fails its budget', async () => {
    const work = (n: number) => {
      let x = 0
      for (let i = 0; i < n; i++) x += i
      return x
    }
    const result = await compareOps({
      title: 'slow candidate',
      baseline: { name: 'light', fn: () => work(10) },
      candidate: { name: 'heavy', fn: () => work(5000) },
      budget: 0.9,
      durationMs: 60,
      rounds: 1,
    })
    expect(result.ratio).toBeLessThan(0.5)
    expect(result.passed).toBe(false)
  })
})

describe('compareHttp', () => {
  it('refuses non-loopback targets', async () => {
    await expect(
      compareHttp({
        title: 'remote',
        baseline: { name: 'a', url: 'http://example.com/' },
        candidate: { name: 'b', url: 'http://127.0.0.1:1/' },
        durationSeconds: 1,
      }),
    ).rejects.toThrow(/loopback/)
  })

  it('aborts when a target answers with errors instead of counting them as throughput', async () => {
    const ok = await listen((_request, response) => response.end('ok'))
    const failing = await listen((_request, response) => {
      response.statusCode = 500
      response.end('no')
    })
    try {
      await expect(
        compareHttp({
          title: 'failing',
          baseline: { name: 'ok', url: ok.url },
          candidate: { name: 'failing', url: failing.url },
          durationSeconds: 1,
          connections: 2,
          rounds: 1,
        }),
      ).rejects.toThrow(/failed requests/)
    } finally {
      await Promise.all([ok.close(), failing.close()])
    }
  }, 20_000)
})
