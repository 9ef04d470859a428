import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { runSuite } from '@portcullis/conformance'
import { type AdapterApp, type AdapterScenario, adapterSuite } from '@portcullis/conformance/adapters'
import { describe, expect, it } from 'vitest'
import { expressApp } from './express-app.js'

/**
 * The application behind a loopback relay that forwards every request and answer unchanged, except
 * that with `dropRetryAfter` it removes `Retry-After`: an adapter that forgets the header.
 */
async function relayed(scenario: AdapterScenario, dropRetryAfter: boolean): Promise<AdapterApp> {
  const app = await expressApp(scenario)
  const target = new URL(app.url)
  const relay: Server = createServer((incoming, outgoing) => {
    const forwarded = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        const headers = { ...answer.headers }
        if (dropRetryAfter) delete headers['retry-after']
        outgoing.writeHead(answer.statusCode ?? 502, headers)
        answer.pipe(outgoing)
      },
    )
    forwarded.on('error', () => outgoing.destroy())
    incoming.pipe(forwarded)
  })
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    async close() {
      await new Promise((resolve) => relay.close(resolve))
      await app.close()
    },
  }
}

const OUTAGE_CASES = ['adapter.unavailable-beats-invalid', 'adapter.unavailable-retry-after']

async function outageResults(dropRetryAfter: boolean) {
  const suite = adapterSuite((scenario) => relayed(scenario, dropRetryAfter))
  const results = await runSuite({
    ...suite,
    cases: suite.cases.filter((testCase) => OUTAGE_CASES.includes(testCase.id)),
  })
  return Object.fromEntries(results.map((result) => [result.id, result.passed]))
}

describe('the adapter suite against an adapter that drops Retry-After', () => {
  it('passes the outage cases through a faithful relay', async () => {
    expect(await outageResults(false)).toEqual({
      'adapter.unavailable-beats-invalid': true,
      'adapter.unavailable-retry-after': true,
    })
  })

  it('fails both outage cases, by name, when Retry-After is dropped', async () => {
    expect(await outageResults(true)).toEqual({
      'adapter.unavailable-beats-invalid': false,
      'adapter.unavailable-retry-after': false,
    })
  })
})
