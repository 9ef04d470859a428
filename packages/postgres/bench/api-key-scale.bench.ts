// How cost grows (report only): API-key verification against a Postgres store holding 10^3 keys vs one
// holding 10^6 keys, on two databases of the same server, in one paired run. Verification is one
// primary-key lookup, so the ratio should stay near 1.0x; a falling ratio means a scan crept in.
import { randomBytes } from 'node:crypto'
import { compareOps, finish, reportTable } from '@portcullis/bench'
import { ApiKeyPepperRing, ApiKeyService } from '@portcullis/core/api-keys'
import { createTestDatabase, type TestDatabase } from '@portcullis/database-tooling/test-database'
import { createPostgresClient, migrate, PostgresApiKeyStore, type PostgresClient } from '@portcullis/postgres'

const peppers = new ApiKeyPepperRing({ version: 'p1', secret: new Uint8Array(randomBytes(32)) })
const opened: { database: TestDatabase; client: PostgresClient }[] = []

/** A migrated database with `keys` filler keys (random digests) and one real key; its verify function. */
async function storeWith(keys: number) {
  const database = await createTestDatabase()
  const client = createPostgresClient({ connectionString: database.connectionString, maxConnections: 2 })
  opened.push({ database, client })
  await migrate(client)
  await client.pool.query(
    `insert into portcullis_api_keys (key_id, owner_id, owner_kind, digest, pepper_version, restrictions, created_at)
     select 'filler' || i, 'svc-' || (i % 1000), 'service',
            decode(md5(i::text) || md5((i + 1)::text), 'hex'), 'p1', '{}'::jsonb, now()
       from generate_series(1, $1::int) as i`,
    [keys],
  )
  await client.pool.query('analyze portcullis_api_keys')
  const service = new ApiKeyService({
    store: new PostgresApiKeyStore({ client }),
    peppers,
    prefix: 'bench',
    digestMemo: false,
  })
  const issued = await service.issue({ ownerId: 'svc-bench' })
  return async () => {
    const verdict = await service.verify(issued.value)
    if (verdict.kind !== 'valid') throw new Error(`verification failed: ${verdict.kind}`)
  }
}

try {
  const small = await storeWith(1_000)
  const large = await storeWith(1_000_000)
  const result = await compareOps({
    title: 'API-key verification: Postgres store with 10^6 keys vs 10^3 keys',
    baseline: { name: '10^3 keys', fn: small },
    candidate: { name: '10^6 keys', fn: large },
    durationMs: 500,
    rounds: 5,
  })
  reportTable(
    'How cost grows: API-key store in Postgres',
    ['Keys stored', 'Verifications/s', 'vs 10^3'],
    [
      ['10^3', result.baseline.perSecond.toFixed(0), '1.00x'],
      ['10^6', result.candidate.perSecond.toFixed(0), `${result.ratio.toFixed(2)}x`],
    ],
  )
  finish()
} finally {
  for (const { client, database } of opened) {
    await client.close()
    await database.close()
  }
}
