// Connecting with the official 2.x client on the stateless 2026-07-28 revision (no initialize handshake:
// `server/discover`, then every request carries its version and capabilities in `_meta`).
import {
  Client,
  ProtocolError,
  ResourceNotFoundError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client'

const token = process.env.BILLING_TOKEN ?? ''
// #region modern-client
const client = new Client(
  { name: 'billing-agent', version: '2.0.0' },
  { versionNegotiation: { mode: { pin: '2026-07-28' } } },
)
// #endregion modern-client
await client.connect(
  new StreamableHTTPClientTransport(new URL('https://billing.example.com/mcp'), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  }),
)

// Results carry caching hints: `private` for a route that authenticates, `public` for an anonymous one.
// #region modern-client
const plans = await client.readResource({ uri: 'express://plans' })
console.log(plans.contents, plans.ttlMs, plans.cacheScope)
// #endregion modern-client

try {
  await client.readResource({ uri: 'tenant://acme/report' })
} catch (error) {
  if (error instanceof ResourceNotFoundError) console.error('no such resource')
  else if (error instanceof ProtocolError && error.code === -32603) {
    console.error('the route refused or failed', error.data)
  } else throw error
}
await client.close()
