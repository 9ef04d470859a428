import {
  type EnvelopeInventoryReport,
  envelopesByKeyVersion,
  envelopesUnder,
  unreadableEnvelopes,
} from '@portcullis/core/protection'
import type { PostgresClient } from '../client/postgres-client.js'
import { PostgresEnvelopeInventory } from '../envelopes/inventory.js'
import { migrationStatus } from '../maintenance/status.js'

/** Exit code of `protector drop-retained` while live envelopes still need the key. */
export const KEY_STILL_IN_USE = 4

/**
 * The key ring as far as the CLI needs it: version labels only, never key material (counting reads the
 * readable version prefix of each envelope and opens nothing).
 */
export interface KeyRingVersions {
  readonly active?: string
  readonly retained: readonly string[]
}

/** The variables the documented key-loading example reads the labels from (the material is not needed). */
export const ACTIVE_VERSION_VARIABLE = 'PORTCULLIS_PROTECTOR_KEY_VERSION'
export const RETAINED_VERSIONS_VARIABLE = 'PORTCULLIS_PROTECTOR_PREVIOUS_KEY_VERSION'

const LABEL = /^[A-Za-z0-9._:-]{1,64}$/

/** Comma-separated labels; a label outside the key-version alphabet is a usage error (returned as text). */
export function versionList(value: string | undefined, what: string): string[] | string {
  if (value === undefined || value.trim() === '') return []
  const labels = value.split(',').map((label) => label.trim())
  const bad = labels.find((label) => !LABEL.test(label))
  return bad === undefined
    ? labels
    : `${what} must be key versions (1-64 of A-Z a-z 0-9 . _ : -), comma-separated`
}

function role(ring: KeyRingVersions, version: string): string {
  if (version === ring.active) return 'active'
  if (ring.retained.includes(version)) return 'retained'
  return ring.active === undefined && ring.retained.length === 0 ? '' : 'UNKNOWN'
}

/** Exit code when the schema is behind (as `status` exits with pending migrations). */
const PENDING_MIGRATIONS = 3

async function counted(
  client: PostgresClient,
  err: (line: string) => void,
): Promise<EnvelopeInventoryReport | number> {
  const status = await migrationStatus(client)
  if (status.pending.length > 0) {
    err(
      `the database has ${status.pending.length} pending migration(s): run portcullis-postgres migrate first`,
    )
    return PENDING_MIGRATIONS
  }
  return new PostgresEnvelopeInventory({ client }).count()
}

/** `protector status`: envelopes per key version, then per table.column, unreadable ones apart. */
export async function protectorStatus(
  client: PostgresClient,
  ring: KeyRingVersions,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number | string> {
  const report = await counted(client, err)
  if (typeof report === 'number') return report
  const totals = envelopesByKeyVersion(report)
  const versions = [...new Set([...(ring.active ? [ring.active] : []), ...ring.retained, ...totals.keys()])]
  out('envelopes by key version:')
  if (versions.length === 0) out('  (none)')
  for (const version of versions) {
    out(`  ${version.padEnd(24)} ${role(ring, version).padEnd(8)} ${totals.get(version) ?? 0}`)
  }
  out(`unreadable (not an envelope): ${unreadableEnvelopes(report)}`)
  out('by location:')
  for (const location of report.locations) {
    const parts = Object.entries(location.keyVersions)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([version, count]) => `${version} ${count}`)
    if (location.unreadable > 0) parts.push(`unreadable ${location.unreadable}`)
    out(`  ${location.location}: ${parts.length === 0 ? 'none' : parts.join(', ')}`)
    out(`    counted by ${location.method}`)
  }
  out(`OAuth transactions past their expiry at ${report.countedAt.toISOString()} are not counted.`)
  for (const version of versions.filter((label) => role(ring, label) === 'UNKNOWN')) {
    out(`warning: ${version} seals ${totals.get(version)} envelope(s) but is not in the key ring given`)
  }
  return 0
}

/**
 * `protector drop-retained [version...]`: a check, run before removing retained keys from the secret
 * store. Exit 0 when no live envelope is sealed under any of them; otherwise names every table.column
 * that still holds some and exits `KEY_STILL_IN_USE`.
 */
export async function protectorDropRetained(
  client: PostgresClient,
  ring: KeyRingVersions,
  versions: readonly string[],
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number | string> {
  const candidates = versions.length > 0 ? versions : ring.retained
  if (candidates.length === 0) {
    return `name the retained key version(s) to check: protector drop-retained <version>, or set ${RETAINED_VERSIONS_VARIABLE}`
  }
  if (ring.active !== undefined && candidates.includes(ring.active)) {
    return `${ring.active} is the active key: it seals every new envelope and is never dropped`
  }
  const report = await counted(client, err)
  if (typeof report === 'number') return report
  let inUse = false
  for (const version of candidates) {
    const where = envelopesUnder(report, version)
    if (where.length === 0) {
      out(`${version}: no live envelope uses it; it can be removed from the retained keys`)
      continue
    }
    inUse = true
    const total = where.reduce((sum, location) => sum + location.count, 0)
    err(`refusing: ${version} still seals ${total} live envelope(s):`)
    for (const location of where) err(`  ${location.location}: ${location.count}`)
  }
  if (inUse) {
    err(
      're-seal the token vault and TOTP secrets (reencryptOAuthVault, reencryptTotpSecrets), let OAuth transactions expire (10 minutes) and one-time codes expire (at most their longest lifetime), let the mail drain send the outbox, drain revocation retries, then check again',
    )
    return KEY_STILL_IN_USE
  }
  const unreadable = unreadableEnvelopes(report)
  if (unreadable > 0) {
    out(
      `note: ${unreadable} stored value(s) are not envelopes at all; no key opens them (see protector status)`,
    )
  }
  return 0
}
