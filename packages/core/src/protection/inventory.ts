import { parseProtectedEnvelope } from './envelope-format.js'
import type { ProtectedEnvelope } from './protector.js'

/**
 * What a counted location holds, the same for every store implementation: token-vault entries, staged
 * revocation retries, live OAuth transactions (PKCE verifier and nonce), TOTP secrets, the sealed
 * messages of the mail outbox and the sealed flow data of live one-time codes.
 */
export type EnvelopeHolding =
  | 'oauth-token-vault'
  | 'oauth-revocation-retry'
  | 'oauth-transaction'
  | 'totp-secret'
  | 'mail-outbox'
  | 'one-time-code'

/** The envelopes one place (a table column, an in-memory store field) holds, by the key that sealed them. */
export interface EnvelopeLocationCount {
  /** Where: `table.column` for a SQL store, `store.field` for an in-memory one. */
  readonly location: string
  readonly holding: EnvelopeHolding
  /** Envelopes per key version; versions without envelopes are left out. */
  readonly keyVersions: Readonly<Record<string, number>>
  /** Stored values no key version can be read from (not an envelope's form). */
  readonly unreadable: number
  /** How the location was counted and why that stays cheap, in words for an operator. */
  readonly method: string
}

export interface EnvelopeInventoryReport {
  /** The time expiry was judged against (expired OAuth transactions are not counted). */
  readonly countedAt: Date
  /** Every location the store keeps envelopes in, counted or not. */
  readonly locations: readonly EnvelopeLocationCount[]
}

/**
 * Port: how many protector envelopes each key version still seals, across every place a store keeps
 * them. Read-only. Envelopes that expiry makes harmless (an OAuth transaction past its expiry can never
 * be consumed) are left out; everything that may still be opened is counted. A retained key can be
 * dropped once no location counts an envelope under it (`envelopesUnder`).
 */
export interface EnvelopeInventory {
  count(): Promise<EnvelopeInventoryReport>
}

/** Counts of one location, built from stored values: envelopes, their string form, or damaged text. */
export interface EnvelopeTally {
  readonly keyVersions: Record<string, number>
  unreadable: number
}

export function emptyTally(): EnvelopeTally {
  return { keyVersions: {}, unreadable: 0 }
}

/** `pe1.<label>.` followed by a ciphertext character, on the first 70 characters (the last dot ends the label). */
const LABELLED = /^pe1\.([A-Za-z0-9._:-]{1,64})\.[A-Za-z0-9_-]/

/**
 * Adds one stored value to a tally: a parsed envelope, or its `pe1.` string form counted under the key
 * version its label names (a damaged ciphertext behind a readable label still counts there, so that key
 * is kept). A value no key version can be read from is unreadable.
 */
export function tallyEnvelope(tally: EnvelopeTally, value: ProtectedEnvelope | string): void {
  let keyVersion: string | undefined
  if (typeof value === 'string') {
    try {
      keyVersion = parseProtectedEnvelope(value).keyVersion
    } catch {
      keyVersion = LABELLED.exec(value.slice(0, 70))?.[1]
    }
  } else {
    keyVersion = typeof value?.keyVersion === 'string' ? value.keyVersion : undefined
  }
  if (keyVersion === undefined) {
    tally.unreadable += 1
    return
  }
  tally.keyVersions[keyVersion] = (tally.keyVersions[keyVersion] ?? 0) + 1
}

/** Envelopes per key version over every location, most used first. */
export function envelopesByKeyVersion(report: EnvelopeInventoryReport): ReadonlyMap<string, number> {
  const totals = new Map<string, number>()
  for (const location of report.locations) {
    for (const [version, count] of Object.entries(location.keyVersions)) {
      totals.set(version, (totals.get(version) ?? 0) + count)
    }
  }
  return new Map([...totals].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])))
}

/** Stored values no key version can be read from, over every location. */
export function unreadableEnvelopes(report: EnvelopeInventoryReport): number {
  return report.locations.reduce((sum, location) => sum + location.unreadable, 0)
}

/** Where envelopes sealed under `keyVersion` still are (empty: the key can be dropped). */
export function envelopesUnder(
  report: EnvelopeInventoryReport,
  keyVersion: string,
): readonly { readonly location: string; readonly holding: EnvelopeHolding; readonly count: number }[] {
  return report.locations
    .filter((location) => (location.keyVersions[keyVersion] ?? 0) > 0)
    .map((location) => ({
      location: location.location,
      holding: location.holding,
      count: location.keyVersions[keyVersion] ?? 0,
    }))
}
