// p50 / p99 latency of the reference app's routes at a fixed, bounded load (16 concurrent clients for
// 5 s per route, loopback), on Postgres: one table, report only. Latency is measured per request by the
// client, in the same process as the app.
import { reportTable } from '@portcullis/bench'
import { runMixedLoad } from '../load/mixed-load.js'
import { startTestApp } from '../test/support/reference-app.js'

const app = await startTestApp()
try {
  const key = await app.apiKeys.issue({ ownerId: 'demo-alice', ownerKind: 'user' })
  const token = await app.keys.workloadSigner.mint({
    subject: 'svc-reporting',
    scopes: ['reports:read'],
    lifetimeSeconds: 600,
  })
  const routes = [
    { name: 'GET /healthz (anonymous, one database round trip)', url: `${app.url}/healthz`, headers: {} },
    {
      name: 'GET /api/whoami with an API key',
      url: `${app.url}/api/whoami`,
      headers: { 'x-api-key': key.value },
    },
    {
      name: 'GET /api/whoami with a workload JWT',
      url: `${app.url}/api/whoami`,
      headers: { authorization: `Bearer ${token}` },
    },
  ]
  const rows: string[][] = []
  for (const route of routes) {
    const report = await runMixedLoad({
      profiles: [{ name: route.name, request: () => ({ url: route.url, headers: route.headers }) }],
      clients: 16,
      durationMs: 5_000,
    })
    const failed = Object.keys(report.byStatus).filter((status) => status !== '200')
    if (failed.length > 0 || report.transportErrors > 0)
      throw new Error(`${route.name}: ${JSON.stringify(report.byStatus)}`)
    rows.push([
      route.name,
      report.requestsPerSecond.toFixed(0),
      report.p50Ms.toFixed(2),
      report.p99Ms.toFixed(2),
    ])
  }
  reportTable(
    `Latency at a fixed load (16 clients, 5 s per route, ${app.database.source})`,
    ['Route', 'Requests/s', 'p50 (ms)', 'p99 (ms)'],
    rows,
  )
} finally {
  await app.close()
}
