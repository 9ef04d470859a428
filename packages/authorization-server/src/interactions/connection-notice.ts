import { ConfigurationError } from '@portcullis/core/errors'
import { withGrantChange } from '../server/grant-change.js'
import type { PreparedGrant } from './consent.js'
import type { ConsentedGrant, InteractionsOptions } from './options.js'

// What the person is told when they connect a client. The "an app was connected" notification is
// written with the grant, in its transaction, when the approval creates the grant: a client connected
// for the first time, or again after it was disconnected. Approving more scopes for a client that is
// connected already, or confirming a native client's request again, is no new connection and sends no
// mail (the person is on the consent page at that moment; the Connected apps page lists what it holds).

/** The longest client name a notification carries (what the mail templates accept). */
const MAX_NAME = 200
/**
 * What a mail header or body line must not hold: controls, line and paragraph separators, bidirectional
 * overrides and isolates (they can make a name read as another).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu

/**
 * The client's name as a notification may carry it: forbidden characters dropped, runs of spaces made
 * one, an RFC 2047 encoded word broken (`=?` becomes `= ?`), at most 200 characters; `fallback` when
 * nothing is left.
 */
export function notifiedClientName(name: string, fallback = 'An app'): string {
  const cleaned = name.replace(FORBIDDEN, ' ').replace(/=\?/g, '= ?').replace(/\s+/gu, ' ').trim()
  const bounded = [...cleaned].slice(0, MAX_NAME).join('').trim()
  return bounded === '' ? fallback : bounded
}

/**
 * Saves an approved grant. With `securityNotices` and a new grant, its connection notification goes into
 * the same store transaction (none when the person turned that kind off or has no verified address).
 */
export async function saveApprovedGrant(
  options: InteractionsOptions,
  grant: PreparedGrant,
  consent: ConsentedGrant,
): Promise<void> {
  const notices = options.securityNotices
  if (notices === undefined || !grant.isNew) return grant.save()
  const change = { type: 'mcp-client-connected', client: notifiedClientName(consent.clientName) } as const
  const outbox = await notices.entries(consent.accountId, change)
  if (outbox.length === 0) return grant.save()
  if (await withGrantChange({ outbox }, () => grant.save())) return
  // An oidc-provider of the application's own, not over `createAuthorizationServer`'s store: the grant
  // stands, its notification had nowhere to go. Said, never silently.
  report(
    options,
    new ConfigurationError(
      'authorization_server.notice_not_written',
      "securityNotices needs the grant saved through createAuthorizationServer's store",
    ),
  )
}

export function report(options: InteractionsOptions, error: unknown): void {
  try {
    options.onError?.(error)
  } catch {
    // The error handler failed as well; the authorization still must not.
  }
}

/** Tells `onConsented` of a saved grant; it never fails or delays the authorization. */
export function notifyConsented(options: InteractionsOptions, consent: ConsentedGrant): void {
  try {
    const result = options.onConsented?.(consent)
    if (result !== undefined) Promise.resolve(result).catch((error: unknown) => report(options, error))
  } catch (error) {
    report(options, error)
  }
}
