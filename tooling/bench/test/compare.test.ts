import type { RequestListener } from 'node:http'
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

  it('reports every round and takes the median of their ratios', async () => {
    const result = await compareOps({
      title: 'three rounds',
      baseline: { name: 'a', fn: () => Math.sqrt(2) },
      candidate: { name: 'b', fn: () => Math.sqrt(3) },
      durationMs: 20,
      rounds: 3,
    })
    expect(result.rounds).toHaveLength(3)
    const sorted = [...result.rounds].sort((a, b) => a - b)
    expect(result.ratio).toBe(sorted[1])
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

  it('sees a slower route as slower when both run interleaved, with chunked and fixed-length bodies', async () => {
    const spin = (ms: number) => {
      const end = performance.now() + ms
      while (performance.now() < end) {}
    }
    const light = await listen((_request, response) => response.end('light'))
    // no Content-Length: two writes make a chunked response
    const heavy = await listen((_request, response) => {
      spin(1)
      response.write('hea')
      response.end('vy')
    })
    try {
      const result = await compareHttp({
        title: 'heavy vs light',
        baseline: { name: 'light', url: light.url },
        candidate: { name: 'heavy', url: heavy.url },
        durationSeconds: 0.3,
        sliceMs: 50,
        warmupSeconds: 0.1,
        connections: 2,
        rounds: 3,
        budget: 0.9,
      })
      expect(result.rounds).toHaveLength(3)
      expect(result.candidate.perSecond).toBeGreaterThan(0)
      // a 1 ms spin caps the heavy route near 1000/s, far below a bare response
      expect(result.candidate.perSecond).toBeLessThan(1100)
      expect(result.ratio).toBeLessThan(0.7)
      expect(result.passed).toBe(false)
    } finally {
      await Promise.all([light.close(), heavy.close()])
    }
  }, 20_000)

  it('sends the body and headers of POST cases', async () => {
    const seen: string[] = []
    const echo = await listen((request, response) => {
      let body = ''
      request.setEncoding('utf8')
      request.on('data', (chunk: string) => {
        body += chunk
      })
      request.on('end', () => {
        seen.push(`${request.method} ${request.url} ${request.headers['x-case']} ${body}`)
        response.statusCode = request.method === 'GET' || body === '{"ping":1}' ? 200 : 400
        response.end()
      })
    })
    try {
      const result = await compareHttp({
        title: 'post',
        baseline: { name: 'get', url: `${echo.url}/a?x=1`, headers: { 'x-case': 'a' } },
        candidate: {
          name: 'post',
          url: `${echo.url}/b`,
          method: 'POST',
          headers: { 'x-case': 'b', 'content-type': 'application/json' },
          body: '{"ping":1}',
        },
        durationSeconds: 0.1,
        sliceMs: 50,
        warmupSeconds: 0.1,
        connections: 1,
        rounds: 1,
      })
      expect(result.rounds).toHaveLength(1)
      expect(seen).toContain('GET /a?x=1 a ')
      expect(seen).toContain('POST /b b {"ping":1}')
    } finally {
      await echo.close()
    }
  }, 20_000)

  const broken: [string, RequestListener, RegExp][] = [
    [
      'answers with errors',
      (_request, response) => {
        response.statusCode = 500
        response.end('no')
      },
      /answered 500/,
    ],
    [
      'closes its keep-alive connections',
      (_request, response) => {
        response.setHeader('Connection', 'close')
        response.end('bye')
      },
      /closed a keep-alive connection/,
    ],
  ]
  for (const [behaviour, listener, reason] of broken) {
    it(`aborts when a target ${behaviour}, instead of counting failures as throughput`, async () => {
      const ok = await listen((_request, response) => response.end('ok'))
      const failing = await listen(listener)
      try {
        await expect(
          compareHttp({
            title: 'failing',
            baseline: { name: 'ok', url: ok.url },
            candidate: { name: 'failing', url: failing.url },
            durationSeconds: 0.1,
            sliceMs: 50,
            warmupSeconds: 0.1,
            connections: 1,
            rounds: 1,
          }),
        ).rejects.toThrow(reason)
      } finally {
        await Promise.all([ok.close(), failing.close()])
      }
    }, 20_000)
  }
})
