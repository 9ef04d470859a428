import type { OutgoingHttpHeaders } from 'node:http'
import { describe, expect, it } from 'vitest'
import { assertSameHeaders, headerDifferences } from '../src/header-parity.js'
import { type ListeningServer, listen } from '../src/listen.js'

const BASELINE: OutgoingHttpHeaders = {
  'content-security-policy': "default-src 'self'; object-src 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
}

function serving(headers: OutgoingHttpHeaders, status = 200): Promise<ListeningServer> {
  return listen((_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers })
    response.end('{}')
  })
}

async function compared(left: OutgoingHttpHeaders, right: OutgoingHttpHeaders, status = 200) {
  const [a, b] = await Promise.all([serving(left), serving(right, status)])
  try {
    return await assertSameHeaders({ name: 'baseline', url: a.url }, { name: 'candidate', url: b.url }).then(
      () => 'same',
    )
  } finally {
    await Promise.all([a.close(), b.close()])
  }
}

describe('assertSameHeaders', () => {
  it('passes two answers with the same headers, a CSP written with other spacing and another content type', async () => {
    const respaced = {
      ...BASELINE,
      'content-security-policy': "default-src 'self';object-src  'none';",
      'content-type': 'application/json; charset=utf-8',
    }
    await expect(compared(BASELINE, respaced)).resolves.toBe('same')
  })

  it('refuses a candidate that sends a header the baseline does not, naming it', async () => {
    await expect(compared(BASELINE, { ...BASELINE, 'x-powered-by': 'Express' })).rejects.toThrow(
      /x-powered-by: \(absent\) vs Express/,
    )
  })

  it('refuses a baseline that leaves a header out', async () => {
    const { 'cache-control': _left, ...fewer } = BASELINE
    await expect(compared(fewer, BASELINE)).rejects.toThrow(/cache-control: \(absent\) vs no-store/)
  })

  it('refuses another value and another CSP', async () => {
    await expect(compared(BASELINE, { ...BASELINE, 'x-frame-options': 'SAMEORIGIN' })).rejects.toThrow(
      /x-frame-options: DENY vs SAMEORIGIN/,
    )
    await expect(
      compared(BASELINE, { ...BASELINE, 'content-security-policy': "default-src 'self'" }),
    ).rejects.toThrow(/content-security-policy/)
  })

  it('refuses a side that does not answer with a success', async () => {
    await expect(compared(BASELINE, BASELINE, 401)).rejects.toThrow(/candidate: answered 401/)
  })
})

describe('headerDifferences', () => {
  it('lists every differing name once, sorted', () => {
    const left = new Map([
      ['b', '1'],
      ['a', '1'],
    ])
    const right = new Map([
      ['a', '2'],
      ['c', '3'],
    ])
    expect(headerDifferences(left, right)).toEqual(['a: 1 vs 2', 'b: 1 vs (absent)', 'c: (absent) vs 3'])
  })
})
