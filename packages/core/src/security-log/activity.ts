import type { SecurityLogDevice, SecurityLogEntry } from './entry.js'
import type { SecurityLog } from './port.js'

/** What a person sees of one entry on a "recent activity" page. */
export type ActivityKind =
  | 'signed_in'
  | 'sign_in_failed'
  | 'signed_out'
  | 'signed_out_everywhere'
  | 'password_changed'
  | 'address_changed'
  | 'factor_added'
  | 'factor_removed'
  | 'identity_linked'
  | 'identity_unlinked'
  | 'client_connected'
  | 'client_disconnected'
  | 'account_changed'
  /** Something someone else did to the account (an administrator): `actorId` names them. */
  | 'administrative_act'

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
  /** The connected or disconnected client (MCP / OAuth client name or id), or null. */
  readonly client: string | null
}

export interface ActivityPage {
  readonly items: readonly ActivityItem[]
  readonly nextCursor: string | null
}

type Shown = readonly [ActivityKind, string | null]

const KINDS: Readonly<Record<string, Shown>> = {
  'login.failed': ['sign_in_failed', 'password'],
  'totp.failed': ['sign_in_failed', 'totp'],
  'passkey.failed': ['sign_in_failed', 'passkey'],
  'sign_in_code.failed': ['sign_in_failed', 'email_code'],
  'oauth.signed_in': ['signed_in', null],
  'password.changed': ['password_changed', 'password'],
  'password_reset.completed': ['password_changed', 'email_code'],
  'account.password_added': ['factor_added', 'password'],
  'account.password_removed': ['factor_removed', 'password'],
  'email.changed': ['address_changed', null],
  'email.change_undone': ['address_changed', null],
  'email.verified': ['address_changed', null],
  'email.address_added': ['address_changed', null],
  'email.address_removed': ['address_changed', null],
  'totp.enabled': ['factor_added', 'totp'],
  'totp.disabled': ['factor_removed', 'totp'],
  'recovery_codes.regenerated': ['factor_added', 'recovery_codes'],
  'passkey.registered': ['factor_added', 'passkey'],
  'passkey.removed': ['factor_removed', 'passkey'],
  'oauth.linked': ['identity_linked', null],
  'oauth.unlinked': ['identity_unlinked', null],
  'oauth.client_connected': ['client_connected', null],
  'oauth.client_disconnected': ['client_disconnected', null],
  'account.status_changed': ['account_changed', null],
}

/** How a sign-in was made, from the RFC 8176 `amr` values it recorded (`pwd otp`, `hwk user`). */
function methodOfAmr(amr: unknown): string | null {
  if (typeof amr !== 'string') return null
  const values = amr.split(' ')
  if (values.includes('hwk') || values.includes('swk')) return 'passkey'
  if (values.includes('pwd')) return values.includes('otp') ? 'password_totp' : 'password'
  return null
}

/** Why a session ended when its end is not shown on its own (the change that ended it is). */
const FOLLOWS_A_CHANGE = new Set(['epoch_bumped'])

function shownAs(entry: SecurityLogEntry): Shown | undefined {
  switch (entry.type) {
    case 'login.succeeded':
      return ['signed_in', methodOfAmr(entry.details.amr)]
    case 'passkey.used':
      return entry.details.ceremony === 'sign_in' ? ['signed_in', 'passkey'] : undefined
    case 'session.revoked':
      if (entry.reason !== null && FOLLOWS_A_CHANGE.has(entry.reason)) return undefined
      return ['signed_out', null]
    case 'epoch.bumped':
      // Moves of the epoch follow a change shown on its own, except signing out everywhere.
      return entry.reason === 'sign_out_everywhere' ? ['signed_out_everywhere', null] : undefined
  }
  const kind = KINDS[entry.type]
  if (kind !== undefined) return kind
  // Anything else someone other than the account did to it (an administrator's act) is shown as such.
  if (entry.actorId !== null && entry.actorId !== entry.accountId) return ['administrative_act', null]
  return undefined
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null)

/** The activity item of an entry, or null for entries a person's page does not show (`session.created`, ...). */
export function activityOf(entry: SecurityLogEntry): ActivityItem | null {
  const kind = shownAs(entry)
  if (kind === undefined) return null
  return {
    id: entry.id,
    at: entry.at,
    kind: kind[0],
    type: entry.type,
    method: kind[1] ?? text(entry.details.provider),
    device: entry.device,
    address: entry.clientAddress ?? entry.clientAddressHash,
    reason: entry.reason,
    actorId: entry.actorId,
    client: text(entry.details.clientName) ?? text(entry.details.clientId),
  }
}

/** Sign-ins this close together are one sign-in told twice (`login.succeeded` and `oauth.signed_in`). */
const SAME_SIGN_IN_MS = 10_000

/**
 * A provider or passkey sign-in is recorded twice: by the local session it created (`login.succeeded`,
 * which knows the device and address) and by its own flow (`oauth.signed_in`, which knows the provider).
 * Adjacent pairs of the same page are told once: the flow's item, with the device and address of the
 * other.
 */
function foldSignIns(items: readonly ActivityItem[]): ActivityItem[] {
  const folded: ActivityItem[] = []
  for (const item of items) {
    const previous = folded.at(-1)
    if (
      previous !== undefined &&
      previous.kind === 'signed_in' &&
      item.kind === 'signed_in' &&
      (previous.type === 'login.succeeded') !== (item.type === 'login.succeeded') &&
      Math.abs(previous.at.getTime() - item.at.getTime()) <= SAME_SIGN_IN_MS
    ) {
      const [session, flow] = previous.type === 'login.succeeded' ? [previous, item] : [item, previous]
      // A password sign-in next to a provider sign-in is two sign-ins.
      if (session.method !== null && session.method !== flow.method) {
        folded.push(item)
        continue
      }
      folded[folded.length - 1] = {
        ...flow,
        method: flow.method ?? session.method,
        device: flow.device ?? session.device,
        address: flow.address ?? session.address,
      }
      continue
    }
    folded.push(item)
  }
  return folded
}

/**
 * One page of a person's recent activity, newest first: one `listForAccount` read (one indexed query),
 * with the entries a person's page does not show left out, and a sign-in recorded by two events told
 * once. A page may hold fewer than `limit` items; `nextCursor` continues where the read stopped.
 */
export async function recentActivity(
  log: Pick<SecurityLog, 'listForAccount'>,
  request: { readonly accountId: string; readonly limit: number; readonly cursor?: string | undefined },
): Promise<ActivityPage> {
  const page = await log.listForAccount(request)
  const items = page.entries.map(activityOf).filter((item): item is ActivityItem => item !== null)
  return { items: foldSignIns(items), nextCursor: page.nextCursor }
}
