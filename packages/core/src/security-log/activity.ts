import type { SecurityLogDevice, SecurityLogEntry } from './entry.js'
import type { SecurityLog } from './port.js'

/** What a person sees of one entry on a "recent activity" page. */
export type ActivityKind =
  | 'signed_in'
  | 'sign_in_failed'
  | 'signed_out'
  | 'password_changed'
  | 'address_changed'
  | 'factor_added'
  | 'factor_removed'
  | 'identity_linked'
  | 'identity_unlinked'
  | 'account_changed'

export interface ActivityItem {
  readonly id: string
  readonly at: Date
  readonly kind: ActivityKind
  /** The entry's type, for a page that wants more detail (`passkey.registered`, `totp.enabled`). */
  readonly type: string
  /** How: `password`, `passkey`, `totp`, `email_code`, a provider name, or null. */
  readonly method: string | null
  readonly device: SecurityLogDevice | null
  /** The client address, or its keyed hash when the log keeps hashes (compare with `hashAddress`). */
  readonly address: string | null
  readonly reason: string | null
  /** Set when someone other than the account acted (an administrator). */
  readonly actorId: string | null
}

export interface ActivityPage {
  readonly items: readonly ActivityItem[]
  readonly nextCursor: string | null
}

const KINDS: Readonly<Record<string, readonly [ActivityKind, string | null]>> = {
  'login.succeeded': ['signed_in', 'password'],
  'login.failed': ['sign_in_failed', 'password'],
  'second_factor.required': ['signed_in', 'password'],
  'totp.failed': ['sign_in_failed', 'totp'],
  'passkey.failed': ['sign_in_failed', 'passkey'],
  'sign_in_code.failed': ['sign_in_failed', 'email_code'],
  'session.revoked': ['signed_out', null],
  'password.changed': ['password_changed', 'password'],
  'password_reset.completed': ['password_changed', 'email_code'],
  'account.password_added': ['factor_added', 'password'],
  'account.password_removed': ['factor_removed', 'password'],
  'email.changed': ['address_changed', null],
  'email.change_undone': ['address_changed', null],
  'email.verified': ['address_changed', null],
  'totp.enabled': ['factor_added', 'totp'],
  'totp.disabled': ['factor_removed', 'totp'],
  'recovery_codes.regenerated': ['factor_added', 'recovery_codes'],
  'passkey.registered': ['factor_added', 'passkey'],
  'passkey.removed': ['factor_removed', 'passkey'],
  'oauth.linked': ['identity_linked', null],
  'oauth.unlinked': ['identity_unlinked', null],
  'account.status_changed': ['account_changed', null],
}

/** The activity item of an entry, or null for entries a person's page does not show (`session.created`, ...). */
export function activityOf(entry: SecurityLogEntry): ActivityItem | null {
  let kind = KINDS[entry.type]
  // A passkey or provider sign-in is a sign-in with that method.
  if (entry.type === 'passkey.used' && entry.details.ceremony === 'sign_in') kind = ['signed_in', 'passkey']
  if (entry.type === 'oauth.signed_in') kind = ['signed_in', null]
  if (kind === undefined) return null
  const provider = typeof entry.details.provider === 'string' ? entry.details.provider : null
  return {
    id: entry.id,
    at: entry.at,
    kind: kind[0],
    type: entry.type,
    method: kind[1] ?? provider,
    device: entry.device,
    address: entry.clientAddress ?? entry.clientAddressHash,
    reason: entry.reason,
    actorId: entry.actorId,
  }
}

/**
 * One page of a person's recent activity, newest first: one `listForAccount` read (one indexed query),
 * with the entries a person's page does not show left out. A page may hold fewer than `limit` items;
 * `nextCursor` continues where the read stopped.
 */
export async function recentActivity(
  log: Pick<SecurityLog, 'listForAccount'>,
  request: { readonly accountId: string; readonly limit: number; readonly cursor?: string | undefined },
): Promise<ActivityPage> {
  const page = await log.listForAccount(request)
  const items = page.entries.map(activityOf).filter((item): item is ActivityItem => item !== null)
  return { items, nextCursor: page.nextCursor }
}
