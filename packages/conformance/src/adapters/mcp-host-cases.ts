// DNS rebinding against the MCP endpoint: a page on `rebind.example` whose name resolves to 127.0.0.1 sends
// `Host: rebind.example` to a server on loopback. The endpoint refuses a Host outside `allowedHosts`; an
// endpoint without `allowedHosts` either refuses non-loopback names because it sees it was reached on a
// loopback address, or (an adapter that cannot see that: the fetch form) refuses to start without them.
import { isPortcullisError } from '@portcullis/core/errors'
import { type ConformanceCase, conformanceCase } from '../suite/suite.js'
import { call } from './http-client.js'
import { mcpWorld } from './mcp-world.js'
import type { AdapterApp, AdapterFixture, AdapterScenario } from './scenario.js'

type Case = ConformanceCase<AdapterFixture>

const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })

function post(app: AdapterApp, host: string) {
  return call(app.url, '/mcp', {
    method: 'POST',
    headers: {
      host,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: 'Bearer alice-token',
    },
    body: ping,
  })
}

function withoutAllowedHosts(scenario: AdapterScenario): AdapterScenario {
  const { mcp } = scenario
  if (mcp === undefined) return scenario
  const { allowedHosts: _dropped, ...rest } = mcp
  return { ...scenario, mcp: rest }
}

export const mcpHostCases: readonly Case[] = [
  conformanceCase(
    'adapter.mcp-dns-rebinding',
    'the MCP endpoint refuses Host: rebind.example on loopback: by allowedHosts, or without them by its loopback check or by refusing to start',
    async (fixture, check) => {
      const listed = await fixture.start(mcpWorld().scenario)
      const port = new URL(listed.url).port
      for (const host of ['rebind.example', `rebind.example:${port}`, `127.0.0.1.rebind.example:${port}`]) {
        const answer = await post(listed, host)
        check(answer.status === 403, `with allowedHosts, Host: ${host} answered ${answer.status}`)
      }
      const own = await post(listed, `127.0.0.1:${port}`)
      check(own.status === 200, `with allowedHosts, the listed Host answered ${own.status}: ${own.text}`)

      let unlisted: AdapterApp | undefined
      try {
        unlisted = await fixture.start(withoutAllowedHosts(mcpWorld().scenario))
      } catch (error) {
        // the adapter cannot see its own address: it must refuse to start, with a configuration error
        check(
          isPortcullisError(error) && error.errorClass === 'configuration',
          `without allowedHosts, starting failed with something other than a ConfigurationError: ${String(error)}`,
        )
        return
      }
      const unlistedPort = new URL(unlisted.url).port
      const rebound = await post(unlisted, `rebind.example:${unlistedPort}`)
      check(rebound.status === 403, `without allowedHosts, Host: rebind.example answered ${rebound.status}`)
      const loopback = await post(unlisted, `localhost:${unlistedPort}`)
      check(loopback.status === 200, `without allowedHosts, Host: localhost answered ${loopback.status}`)
    },
  ),
]
