// Every published package's export surface equals its committed packages/<name>/api-surface.json, except
// for removals and changes of kind that a changeset names. Run `pnpm api:snapshot` after adding an export.
import { describe, expect, it } from 'vitest'
import { publishedPackages } from '../src/published.js'
import {
  announcementTexts,
  checkSurface,
  describeChange,
  exportSurfaces,
  readSnapshot,
} from '../src/snapshot.js'

const repoRoot = new URL('../../../', import.meta.url)
const packages = publishedPackages(repoRoot)
const surfaces = exportSurfaces(packages.map((pkg) => pkg.root))

describe('the published export surface', () => {
  it('covers the fourteen published packages', () => {
    expect(packages.map((pkg) => pkg.name)).toEqual([
      '@portcullis/argon2',
      '@portcullis/authorization-server',
      '@portcullis/conformance',
      '@portcullis/core',
      '@portcullis/express',
      '@portcullis/fastify',
      '@portcullis/hono',
      '@portcullis/http',
      '@portcullis/mail',
      '@portcullis/opentelemetry',
      '@portcullis/passkeys',
      '@portcullis/password-blocklist',
      '@portcullis/postgres',
      '@portcullis/totp',
    ])
  })

  it.each(packages.map((pkg, index) => [pkg.name, pkg, index] as const))(
    '%s matches its api-surface.json, and no export is removed or changed in kind without a changeset',
    (name, pkg, index) => {
      const snapshot = readSnapshot(pkg.root)
      expect(
        Object.keys(snapshot).length,
        `${name} has no api-surface.json: run pnpm api:snapshot`,
      ).toBeGreaterThan(0)
      const check = checkSurface(
        snapshot,
        surfaces[index] ?? {},
        announcementTexts(new URL('.changeset/', repoRoot), pkg.root),
      )
      expect(
        check.unannounced.map((change) => describeChange(name, change)),
        'removed or changed exports: name each in a changeset (pnpm changeset), then run pnpm api:snapshot',
      ).toEqual([])
      expect(
        check.unrecorded.map((change) => describeChange(name, change)),
        'new exports: run pnpm api:snapshot',
      ).toEqual([])
    },
  )
})
