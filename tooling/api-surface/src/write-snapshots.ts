// `pnpm api:snapshot`: rewrites packages/<name>/api-surface.json of every published package from its
// sources. Refuses (and writes nothing) while an export has disappeared or changed kind without a
// changeset that names it.
import { writeFileSync } from 'node:fs'
import { publishedPackages } from './published.js'
import {
  announcementTexts,
  exportSurfaces,
  formatSnapshot,
  planSnapshotUpdate,
  readSnapshot,
  SNAPSHOT_FILE,
} from './snapshot.js'

const repoRoot = new URL('../../../', import.meta.url)
const packages = publishedPackages(repoRoot)
const surfaces = exportSurfaces(packages.map((pkg) => pkg.root))
const plans = packages.map((pkg, index) => ({
  pkg,
  plan: planSnapshotUpdate(
    pkg.name,
    readSnapshot(pkg.root),
    surfaces[index] ?? {},
    announcementTexts(new URL('.changeset/', repoRoot), pkg.root),
  ),
}))
const refused = plans.flatMap(({ plan }) => plan.refused)
if (refused.length > 0) {
  console.error('Breaking changes that no changeset names (add a changeset naming each, then run again):')
  for (const line of refused) console.error(`  ${line}`)
  process.exitCode = 1
} else {
  for (const { pkg, plan } of plans) {
    if (plan.next === undefined) continue
    writeFileSync(new URL(SNAPSHOT_FILE, pkg.root), formatSnapshot(plan.next))
    console.log(`wrote packages/${pkg.root.pathname.split('/').at(-2)}/${SNAPSHOT_FILE}`)
  }
}
