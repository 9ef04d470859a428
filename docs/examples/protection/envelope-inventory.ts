// Step 4 and 5 of the rotation runbook: how many envelopes each key version still seals, and whether the
// retained key `2031-01` can be dropped. Read-only; it needs no key material (only the readable version
// label in front of each envelope), so it can run anywhere the database is reachable.
import { envelopesByKeyVersion, envelopesUnder, unreadableEnvelopes } from '@portcullis/core/protection'
import { createPostgresClient, PostgresEnvelopeInventory } from '@portcullis/postgres'

const client = createPostgresClient({ connectionString: process.env.DATABASE_URL ?? '' })
const inventory = new PostgresEnvelopeInventory({ client })

/** True when no live envelope is sealed under `retained` any more. */
// #region can-drop
export async function canDrop(retained: string): Promise<boolean> {
  const report = await inventory.count()
  for (const [version, count] of envelopesByKeyVersion(report)) console.log(`${version}: ${count}`)
  console.log(`unreadable: ${unreadableEnvelopes(report)}`)
  // Every place that still needs the key, as table.column with a count.
  const where = envelopesUnder(report, retained)
  for (const { location, count } of where) console.error(`${retained} still seals ${count} in ${location}`)
  return where.length === 0
}
// #endregion can-drop
