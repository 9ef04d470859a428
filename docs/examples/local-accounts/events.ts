// Security events: one typed union delivered to your sink. A sink that throws or rejects never fails a
// request; events carry account ids, session handles, family ids, addresses and reasons, never secrets.
import type { SecurityEvent, SecurityEventSink } from '@portcullis/core/local-accounts'

const counters = new Map<SecurityEvent['type'], number>()

// #region security-events
export const events: SecurityEventSink = (event) => {
  counters.set(event.type, (counters.get(event.type) ?? 0) + 1)
  switch (event.type) {
    case 'refresh.reuse_detected':
      // A refresh token was used twice: stolen, or a client bug. The family is already revoked.
      // #endregion security-events
      console.warn(
        `refresh token reuse for ${event.accountId} (family ${event.familyId}) from ${event.clientAddress ?? '?'}`,
      )
      break
    case 'login.rate_limited':
      console.info(`sign-in rate limited for ${event.retryAfterSeconds} s (${event.clientAddress ?? '?'})`)
      break
    case 'csrf.refused':
      console.info(`CSRF refusal ${event.reason} on ${event.method}`)
      break
    default:
      break
  }
}

// Pass it as `new LocalAccounts({ ..., events, onEventSinkError })`.
export const onEventSinkError = (error: unknown, event: SecurityEvent) => {
  console.error(`security event sink failed for ${event.type}`, error instanceof Error ? error.name : error)
}
