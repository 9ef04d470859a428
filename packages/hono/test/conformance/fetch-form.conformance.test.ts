import { adapterOAuthSuite, adapterSuite } from '@portcullis/conformance/adapters'
import { describeConformance } from '@portcullis/conformance/vitest'
import { oauthTestProvider } from '../../../core/test/oidc/support/adapter-provider.js'
import { fetchApp } from './fetch-app.js'

// Every route of the fetch form goes through `route(...)`, compiled before the next request: a route the
// adapter never compiled cannot be declared, so that case has nothing to run against.
const suite = adapterSuite((scenario) => fetchApp(scenario))
describeConformance({
  ...suite,
  cases: suite.cases.filter((entry) => entry.id !== 'adapter.uncompiled-route'),
})
describeConformance(adapterOAuthSuite((scenario) => fetchApp(scenario), oauthTestProvider))

// The same form served by `@hono/node-server` (its default client-address source), and over `node:http`
// calling `fetch(request)` alone, with no source: the client-address and MCP Host cases for each.
const CLIENT_CASES = new Set([
  'adapter.client-address-limit',
  'adapter.client-address-ipv6-prefix',
  'adapter.client-address-unknown',
  'adapter.mcp-dns-rebinding',
  'adapter.mcp-list-read',
])
const onNodeServer = adapterSuite((scenario) => fetchApp(scenario, '@hono/node-server'))
describeConformance({
  ...onNodeServer,
  name: `${onNodeServer.name} (the fetch form on @hono/node-server)`,
  cases: onNodeServer.cases.filter((entry) => CLIENT_CASES.has(entry.id)),
})
const withoutAddress = adapterSuite((scenario) => fetchApp(scenario, 'node:http, no address'), {
  clientAddress: 'unknown',
})
describeConformance({
  ...withoutAddress,
  name: `${withoutAddress.name} (the fetch form with no client-address source)`,
  cases: withoutAddress.cases.filter((entry) => CLIENT_CASES.has(entry.id)),
})
