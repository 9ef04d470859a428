import { randomUUID } from 'node:crypto'
import type { RevocationNotice, RevocationNotices, RevocationSubscriber } from '@portcullis/core/revocation'

/**
 * Two instances' notices for one case. `notices` (instance A) and `peer` (instance B) share their
 * backing as two app instances would (the memory implementation is its own peer). Cases use unique
 * identifiers, so fixtures may share one channel with other cases.
 */
export interface RevocationNoticesFixture {
  readonly notices: RevocationNotices
  readonly peer: RevocationNotices
  /**
   * Drops the peer's listening connection as an outage would (for Postgres: `pg_terminate_backend` on its
   * backend), and resolves once the server has ended it. Needed by suites built with `listenerCanDrop`.
   */
  interruptPeer?(): Promise<void>
  dispose?(): Promise<void> | void
}

export type RevocationNoticesFactory = () => RevocationNoticesFixture | Promise<RevocationNoticesFixture>

/** A subscriber that records what it is told, in order, with whether the notices were trusted then. */
export interface Recorder extends RevocationSubscriber {
  readonly notices: RevocationNotice[]
  /** `trusted()` of the notices at each flush. */
  readonly flushes: boolean[]
}

export function recorder(source: RevocationNotices, options: { readonly throws?: boolean } = {}): Recorder {
  const notices: RevocationNotice[] = []
  const flushes: boolean[] = []
  return {
    notices,
    flushes,
    revoked(notice) {
      notices.push(notice)
      if (options.throws === true) throw new Error('a failing subscriber')
    },
    flush() {
      flushes.push(source.trusted())
      if (options.throws === true) throw new Error('a failing subscriber')
    },
  }
}

/** A unique identifier for this case. */
export const unique = (label: string): string => `${label}-${randomUUID()}`

/** Waits until `condition()` holds, polling every 5 ms; false when `timeoutMs` passed first. */
export async function eventually(condition: () => boolean, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() >= deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  return true
}

/** The notices a recorder got whose identifier is one of `ids` (other cases may share the channel). */
export function mine(record: Recorder, ids: ReadonlySet<string>): RevocationNotice[] {
  return record.notices.filter((notice) => ids.has(identifierOf(notice)))
}

export function identifierOf(notice: RevocationNotice): string {
  switch (notice.kind) {
    case 'session':
      return notice.digest
    case 'account':
      return notice.accountId
    case 'refresh-family':
      return notice.familyId
    case 'api-key':
      return notice.keyId
    case 'grant':
      return notice.grantId
    case 'membership':
      return notice.accountId
  }
}

export const sameNotice = (a: RevocationNotice | undefined, b: RevocationNotice): boolean =>
  a !== undefined && a.kind === b.kind && identifierOf(a) === identifierOf(b)
