import { CacheTrust } from '../revocation/cache-trust.js'
import type { RevocationNotices } from '../revocation/revocation-notices.js'
import { EpochCache } from './epoch-cache.js'
import type { LocalSettings } from './local-settings.js'
import {
  emitSecurityEvent,
  type SecurityEventFields,
  type SecurityEventSink,
  type SecurityEventSinkErrorHandler,
  type SecurityEventType,
} from './security-events.js'

/** What the session, token and account parts of `LocalAccounts` share. */
export interface LocalRuntime {
  readonly settings: LocalSettings
  /** Milliseconds since the epoch. */
  readonly clock: () => number
  readonly random: (size: number) => Uint8Array
  /** How long cached sessions and epochs are believed now, and their shared generation. */
  readonly trust: CacheTrust
  readonly epochs: EpochCache
  emit<Type extends SecurityEventType>(type: Type, fields: SecurityEventFields[Type]): void
}

export function localRuntime(options: {
  readonly settings: LocalSettings
  readonly clock: () => number
  readonly random: (size: number) => Uint8Array
  readonly loadEpoch: (accountId: string) => Promise<number | null>
  readonly notices: RevocationNotices | undefined
  readonly sink: SecurityEventSink | undefined
  readonly onSinkError: SecurityEventSinkErrorHandler | undefined
}): LocalRuntime {
  const { settings, clock, random, sink, onSinkError } = options
  const trust = new CacheTrust(options.notices, settings.stalenessMs, settings.trustedTtlMs)
  return {
    settings,
    clock,
    random,
    trust,
    epochs: new EpochCache(options.loadEpoch, trust, settings.maxCachedAccounts, clock),
    emit(type, fields) {
      if (sink === undefined) return
      // A clock that throws must not fail the request either.
      let at: Date
      try {
        at = new Date(clock())
      } catch {
        at = new Date()
      }
      emitSecurityEvent(sink, { type, at, ...fields } as Parameters<SecurityEventSink>[0], onSinkError)
    },
  }
}

/** Drops `undefined` members, so optional event fields are absent rather than `undefined`. */
export function defined<T extends Record<string, unknown>>(
  fields: T,
): { [K in keyof T]: Exclude<T[K], undefined> } {
  const result: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) result[key] = value
  return result as { [K in keyof T]: Exclude<T[K], undefined> }
}
