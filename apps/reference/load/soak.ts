// `pnpm soak`: a fixed 10-minute run (not part of CI) of mixed load against the reference app on Postgres
// (DATABASE_URL, or embedded storage), sampling throughput, p99 latency, heap and event-loop delay every
// 30 s. Writes a table and an SVG plot next to docs/performance.md. `SOAK_MINUTES` shortens it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ApiKeyService } from '@portcullis/core/api-keys'
import { createTestDatabase } from '@portcullis/database-tooling/test-database'
import { createPostgresClient, PostgresApiKeyStore } from '@portcullis/postgres'
import { buildKeyMaterial } from '../src/secrets/key-material.js'
import { readSecretsFile } from '../src/secrets/secrets-file.js'
import { startReferenceApp } from '../src/server.js'
import { testConfig } from '../test/support/reference-app.js'
import { type LoadProfile, type LoadSample, runMixedLoad } from './mixed-load.js'
import { soakSvg } from './soak-plot.js'

const minutes = Number(process.env.SOAK_MINUTES ?? '10')
const docs = fileURLToPath(new URL('../../../docs/', import.meta.url))
const directory = await mkdtemp(join(tmpdir(), 'portcullis-soak-'))
const database = await createTestDatabase()
const config = testConfig(directory, database.connectionString)
const running = await startReferenceApp(config)
const postgres = createPostgresClient({ connectionString: database.connectionString, maxConnections: 2 })
try {
  const keys = await buildKeyMaterial(await readSecretsFile(config.secretsFile ?? ''))
  const apiKeys = new ApiKeyService({
    store: new PostgresApiKeyStore({ client: postgres }),
    peppers: keys.peppers,
    prefix: 'demo',
  })
  const profiles: LoadProfile[] = []
  for (const ownerId of ['demo-alice', 'demo-bob', 'demo-carol']) {
    const issued = await apiKeys.issue({ ownerId, ownerKind: 'user' })
    profiles.push({
      name: ownerId,
      request: () => ({ url: `${running.url}/api/whoami`, headers: { 'x-api-key': issued.value } }),
      principal: ownerId,
    })
  }
  // Workload tokens are short-lived (the app accepts at most an hour): a fresh one every 5 minutes, as a
  // real workload would fetch.
  const mint = () =>
    keys.workloadSigner.mint({ subject: 'svc-reporting', scopes: ['reports:read'], lifetimeSeconds: 600 })
  let token = await mint()
  const refresher = setInterval(() => {
    void mint().then((next) => {
      token = next
    })
  }, 300_000)
  refresher.unref()
  profiles.push({
    name: 'svc-reporting',
    request: () => ({ url: `${running.url}/api/whoami`, headers: { authorization: `Bearer ${token}` } }),
    principal: 'svc-reporting',
  })
  profiles.push({ name: 'anonymous', request: () => ({ url: `${running.url}/healthz` }) })
  console.log(`soak: ${minutes} min against ${running.url} (${database.source})`)
  const report = await runMixedLoad({
    profiles,
    clients: 64,
    durationMs: minutes * 60_000,
    sampleEveryMs: Math.min(30_000, minutes * 6_000),
    principalOf: (body) => (body as { principal?: { id?: string } } | undefined)?.principal?.id,
    onSample: (sample: LoadSample) =>
      console.log(
        `${(sample.atMs / 1000).toFixed(0)} s: ${sample.requestsPerSecond.toFixed(0)}/s, p99 ${sample.p99Ms.toFixed(1)} ms, heap ${sample.heapUsedMiB.toFixed(1)} MiB, loop p99 ${sample.eventLoopDelayP99Ms.toFixed(1)} ms`,
      ),
  })
  const rows = report.samples.map(
    (sample) =>
      `| ${(sample.atMs / 1000).toFixed(0)} | ${sample.requestsPerSecond.toFixed(0)} | ${sample.p50Ms.toFixed(1)} | ${sample.p99Ms.toFixed(1)} | ${sample.heapUsedMiB.toFixed(1)} | ${sample.eventLoopDelayP99Ms.toFixed(1)} |`,
  )
  const markdown = [
    '# Soak run',
    '',
    `Written by \`pnpm soak\` (${minutes} min, 64 clients mixing API keys of three users, a workload JWT and`,
    `anonymous requests against the reference app on ${database.source === 'embedded' ? 'embedded PostgreSQL' : 'Postgres'}).`,
    `${report.requests} requests, ${report.requestsPerSecond.toFixed(0)}/s overall, p50 ${report.p50Ms.toFixed(1)} ms,`,
    `p99 ${report.p99Ms.toFixed(1)} ms; statuses ${JSON.stringify(report.byProfile)}; wrong principals: ${report.wrongPrincipals};`,
    `transport errors: ${report.transportErrors}. Heap and event-loop delay are the app process's (the load runs in it).`,
    '',
    '![throughput, p99 and heap over time](soak.svg)',
    '',
    '| Time (s) | Requests/s | p50 (ms) | p99 (ms) | Heap (MiB) | Event-loop p99 (ms) |',
    '| ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
  ].join('\n')
  if (Object.keys(report.firstFailures).length > 0) console.log('first failures:', report.firstFailures)
  await writeFile(join(docs, 'soak.md'), markdown)
  await writeFile(join(docs, 'soak.svg'), soakSvg(report.samples))
  console.log(`written ${join(docs, 'soak.md')} and soak.svg`)
  if (report.wrongPrincipals > 0 || Object.keys(report.byStatus).some((status) => Number(status) >= 500)) {
    process.exitCode = 1
  }
} finally {
  await postgres.close()
  await running.close()
  await database.close()
  await rm(directory, { recursive: true, force: true })
}
